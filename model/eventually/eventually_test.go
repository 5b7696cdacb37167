package eventually

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestWithin: a state that comes is seen (after as many looks as it takes);
// one that never comes is not, once the limit has passed.
func TestWithin(t *testing.T) {
	var looks atomic.Int64
	if !Within(time.Minute, func() bool { return looks.Add(1) == 4 }) {
		t.Fatal("a state that came on the fourth look was not seen")
	}
	if n := looks.Load(); n != 4 {
		t.Errorf("%d looks, want 4 (none after the state came)", n)
	}
	looks.Store(0)
	if Within(0, func() bool { looks.Add(1); return false }) {
		t.Fatal("a state that never came was seen")
	}
	if n := looks.Load(); n == 0 {
		t.Error("the state was never looked at")
	}
}

// recorder is a testing.TB that keeps what Fatalf said instead of ending
// the test.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}

// TestTrueAndContains: a wait that ends well says nothing; one that times
// out fails its test with the message made then, from the state it saw.
func TestTrueAndContains(t *testing.T) {
	r := &recorder{TB: t}
	True(r, time.Minute, func() bool { return true }, func() string { return "unused" })
	Contains(r, time.Minute, &strings.Builder{}, "")
	if r.failed != "" {
		t.Fatalf("a state that held failed the test: %s", r.failed)
	}
	var out strings.Builder
	out.WriteString("serving on :1")
	Contains(r, 0, &out, "[y/N]")
	if !strings.Contains(r.failed, `no "[y/N]" in:`) || !strings.Contains(r.failed, "serving on :1") {
		t.Errorf("the failure says %q, want what was waited for and what was there", r.failed)
	}
}
