package app

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestSendTrackerWaitWhileSendsStart: a server waits on its tracker while
// its operators may still start sends: Wait returns whenever none runs,
// and ends with its context while one does. (The tracker was a
// sync.WaitGroup, which may not be Added to at zero while it is Waited on:
// TestRealConsoleRepeatNeedsItsCount failed under -race.)
func TestSendTrackerWaitWhileSendsStart(t *testing.T) {
	t.Parallel()
	g := &SendTracker{}
	var sends, waiters sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	waiters.Add(1)
	go func() {
		defer waiters.Done()
		for range 200 {
			if err := g.Wait(ctx); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 200 {
		g.add()
		sends.Add(1)
		go func() { defer sends.Done(); g.done() }()
	}
	sends.Wait()
	waiters.Wait()
	if err := g.Wait(ctx); err != nil {
		t.Fatalf("none running: %v", err)
	}
	g.add() // one that does not end
	stopped, stop := context.WithCancel(context.Background())
	stop()
	if err := g.Wait(stopped); !errors.Is(err, context.Canceled) {
		t.Errorf("a send running and the context ended: %v", err)
	}
	g.done()
}
