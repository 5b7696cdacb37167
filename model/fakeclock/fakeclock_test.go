package fakeclock

import (
	"context"
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	t0 := time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)
	c := New(t0)
	var hooked []int
	c.OnSleep = func(n int) { hooked = append(hooked, n) }
	_ = c.Sleep(context.Background(), 2*time.Second)
	_ = c.Sleep(context.Background(), -time.Second) // a deadline already past: no move
	c.Advance(time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Sleep(ctx, time.Hour); err == nil {
		t.Error("Sleep on a done context returned nil")
	}
	if got := c.Now().Sub(t0); got != time.Minute+2*time.Second {
		t.Errorf("clock moved %v, want 1m2s", got)
	}
	if c.Slept() != 2*time.Second || len(c.Sleeps()) != 2 || len(hooked) != 2 || hooked[1] != 2 {
		t.Errorf("slept %v %v, hooks %v", c.Slept(), c.Sleeps(), hooked)
	}
}
