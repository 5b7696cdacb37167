package app

import (
	"context"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
)

// TestASendPacesToTheRateAsItIsNow (issue 40): `config set rate_per_minute
// 5` while smsdesk serve ran did not slow a served send: serve's one client
// was made with the rate read at its start, and kept pacing to it, while
// the quiet hours and the rest were read at each send. A send's start now
// sets the client's pace from the config file as it is then.
func TestASendPacesToTheRateAsItIsNow(t *testing.T) {
	t.Parallel()
	v := newService(t, sandbox.Options{})
	paths := tempPaths(t)
	set := func(rate int) {
		t.Helper()
		if _, err := config.Update(paths, func(c *config.Config) error {
			return c.SetProfile(&config.Profile{Name: "live", Sender: sandbox.DefaultSender, RatePerMinute: rate})
		}); err != nil {
			t.Fatal(err)
		}
	}
	set(60000)
	s := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender, RatePerMinute: 60000})
	s.Settings = ProfileSettings(paths, "live")
	if got := s.Client.RateStatus().Limit; got != 60000 {
		t.Fatalf("the client paces to %d a minute at the start, want 60000", got)
	}
	for _, rate := range []int{5, 0, 120} { // 0: unset, the default
		set(rate)
		if _, err := s.PrepareSend(context.Background(), SendRequest{Plan: s.Plan(sandbox.DefaultSender, pairs(2)), Source: FileSource("pairs.csv")}); err != nil {
			t.Fatal(err)
		}
		want := firstPositive(rate, config.DefaultRatePerMinute)
		if got := s.Client.RateStatus().Limit; got != want {
			t.Errorf("after config set rate_per_minute %d, a send paces to %d a minute, want %d", rate, got, want)
		}
	}
}
