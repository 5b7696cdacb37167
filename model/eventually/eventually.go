// Package eventually is the tests' one wait for a state: a file written, a
// line printed, a goroutine ended, a journal complete. It looks at the state
// again and again until it holds, and fails the test at a bound that guards
// against a hang and is no budget: a busy machine takes as long as it takes.
// Only tests import it (with model/fakeclock and model/syncbuf); nothing in
// the program does.
//
// A test that shows something did not happen does not use it to wait a
// while: it waits on a clock it controls (model/fakeclock) or on an event
// that marks the moment (a goroutine's end, a server's Close).
package eventually

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// firstPause and lastPause bound the pause between two looks: the first
// look again is soon (most states come within a few milliseconds), and the
// pause doubles up to 50 ms. A look can cost the thing looked at (a look at
// the console is a message to its program, and bubbletea draws a frame
// after every message: eight tests looking every 5 ms drew 1,600 frames a
// second between them, ten times the CPU under -race).
const (
	firstPause = time.Millisecond
	lastPause  = 50 * time.Millisecond
)

// Within looks at cond until it holds, and says whether it did before limit
// passed. cond may gather what it saw for the caller's message.
func Within(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for pause := firstPause; ; pause = min(2*pause, lastPause) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause) // the one pause between looks, for every test
	}
}

// True waits until cond holds; past limit it fails t with what() (called
// only then: the state it describes is the one the wait ended on).
func True(t testing.TB, limit time.Duration, cond func() bool, what func() string) {
	t.Helper()
	if !Within(limit, cond) {
		t.Fatalf("after %v: %s", limit, what())
	}
}

// Contains waits until out (a buffer being written, a log) holds want;
// past limit it fails t, showing what out held.
func Contains(t testing.TB, limit time.Duration, out interface{ String() string }, want string) {
	t.Helper()
	True(t, limit, func() bool { return strings.Contains(out.String(), want) },
		func() string { return "no " + strconv.Quote(want) + " in:\n" + out.String() })
}
