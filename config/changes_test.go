package config

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// TestChangeFeed: the feeds of one process (copies of one Paths) share one
// watch, and each learns of what another process changes: the opt-out
// list, a send, the config file. Closing the last feed stops the watch.
func TestChangeFeed(t *testing.T) {
	dir := t.TempDir()
	p := PathsIn(filepath.Join(dir, "config"), filepath.Join(dir, "state"))
	t.Cleanup(func() { p.CloseLedger() })
	other := PathsIn(p.ConfigDir, p.StateDir) // another process's
	t.Cleanup(func() { other.CloseLedger() })
	if _, err := other.Ledger(context.Background()); err != nil {
		t.Fatal(err)
	}
	a, err := p.WatchChanges()
	if err != nil {
		t.Fatal(err)
	}
	// The watch never opens the ledger itself (a console on its setup
	// screen reads nothing of it): the config file alone, until the
	// process opens it.
	ctx0, cancel0 := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel0()
	if _, err := Update(other, func(c *Config) error { return c.SetProfile(&Profile{Name: "home"}) }); err != nil {
		t.Fatal(err)
	}
	if c, err := a.Next(ctx0); err != nil || c != (Changes{Rules: true}) {
		t.Fatalf("before the ledger is open: %+v %v", c, err)
	}
	p.ledger.mu.Lock()
	if p.ledger.l != nil {
		t.Error("the watch opened the ledger")
	}
	p.ledger.mu.Unlock()
	if _, err := p.Ledger(context.Background()); err != nil {
		t.Fatal(err)
	}
	a.Close()
	a, err = p.WatchChanges()
	if err != nil {
		t.Fatal(err)
	}
	h := &p.ledger.changes
	h.mu.Lock()
	done := h.done
	h.mu.Unlock()
	b, err := p.WatchChanges()
	if err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	if h.done != done || len(h.feeds) != 2 {
		t.Errorf("a second feed started another watch (or is not in the first's): %d feeds", len(h.feeds))
	}
	h.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	wait := func(f *ChangeFeed, what string, is func(Changes) bool) {
		t.Helper()
		for {
			c, err := f.Next(ctx)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if is(c) {
				return
			}
		}
	}
	if _, err := AddOptOuts(context.Background(), other, "", []model.OptOut{{Mobile: "09120000001", Added: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	wait(a, "an opt-out", func(c Changes) bool { return c.OptOuts })
	wait(b, "an opt-out", func(c Changes) bool { return c.OptOuts })
	if _, err := Update(other, func(c *Config) error { return c.SetProfile(&Profile{Name: "work", QuietHours: "22:00-08:00"}) }); err != nil {
		t.Fatal(err)
	}
	wait(a, "config set", func(c Changes) bool { return c.Rules })

	a.Close()
	a.Close() // twice: nothing
	if _, err := a.Next(ctx); err != ErrFeedClosed {
		t.Errorf("Next on a closed feed: %v", err)
	}
	h.mu.Lock()
	running := h.cancel != nil
	h.mu.Unlock()
	if !running {
		t.Error("the watch stopped while a feed was open")
	}
	b.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cancel != nil || len(h.feeds) != 0 {
		t.Error("the watch runs on after its last feed closed")
	}
	select {
	case <-done:
	default:
		t.Error("the watch's goroutine has not ended")
	}
}
