package app

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// prepareOnce prepares rows as a once-only send with id.
func prepareOnce(t *testing.T, s *Session, rows []model.PairRow, id string) *PendingSend {
	t.Helper()
	p, err := s.PrepareSend(context.Background(), SendRequest{Plan: s.Plan(s.Profile.Sender, rows), Source: FileSource("pairs.csv"), OnceID: id})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOnceAcrossProfiles: a once-only id is the account's: another profile
// on the same service and key finds it (the same pairs: the send made, not
// a repeat refusal; other pairs: a mistake), another key does not.
func TestOnceAcrossProfiles(t *testing.T) {
	t.Parallel()
	v := newService(t, sandbox.Options{Seed: true})
	paths := tempPaths(t)
	a := v.session(t, paths, &config.Profile{Name: "a", Sender: sandbox.DefaultSender})
	b := v.session(t, paths, &config.Profile{Name: "b", Sender: sandbox.DefaultSender})
	p := prepareOnce(t, a, pairs(3), "daily-1")
	if p.Refusal != nil {
		t.Fatal(p.Refusal)
	}
	x, err := p.Start(context.Background(), SendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Finish(); err != nil {
		t.Fatal(err)
	}
	again := prepareOnce(t, b, pairs(3), "daily-1")
	r := again.Refusal
	if r == nil || r.Rule != RuleOnce || r.Once == nil || !r.Once.SamePairs || r.Once.SendID != x.ID() || r.Once.Running || r.Once.Profile != "a" {
		t.Fatalf("the same id and pairs from another profile: %+v %+v", r, r.Once)
	}
	if _, err := again.Start(context.Background(), SendOptions{}); !errors.As(err, &r) || r.Rule != RuleOnce {
		t.Errorf("Start of the refused: %v", err)
	}
	if other := prepareOnce(t, b, pairs(2), "daily-1").Refusal; other == nil || other.Rule != RuleOnce || other.Once.SamePairs {
		t.Errorf("the same id, other pairs: %+v", other)
	} else if when := other.Once.Time.In(b.Profile.Zone()).Format("2006-01-02 15:04"); !strings.Contains(other.Reason, when) {
		// The earlier send's time for people is in the profile's zone
		// (Asia/Tehran by default), not the machine's (UTC here).
		t.Errorf("the same id, other pairs: %q does not name the earlier send's time %s (%s)", other.Reason, when, b.Profile.Zone())
	}
	if fresh := prepareOnce(t, b, pairs(2), "daily-2").Refusal; fresh != nil && fresh.Rule == RuleOnce {
		t.Errorf("a new id: %+v", fresh)
	}
	if n := v.sb.RequestsTo("POST", "/sms/send-pair"); n != 1 {
		t.Errorf("%d send requests, want 1", n)
	}
}

// TestOnceTwoRunsAtOnce: eight runs with one once-only id, all prepared
// before any starts (overlapping cron jobs), start together: one sends,
// the others are refused under the start lock naming it.
func TestOnceTwoRunsAtOnce(t *testing.T) {
	t.Parallel()
	v := newService(t, sandbox.Options{Seed: true})
	paths := tempPaths(t)
	var ps []*PendingSend
	for range 8 {
		s := v.session(t, paths, &config.Profile{Name: "cron", Sender: sandbox.DefaultSender, RepeatWindow: "0"})
		p := prepareOnce(t, s, pairs(4), "reminders-2026-11-25")
		if p.Refusal != nil {
			t.Fatal(p.Refusal)
		}
		ps = append(ps, p)
	}
	var wg sync.WaitGroup
	sends := make(chan *Send, len(ps))
	refused := make(chan *Refusal, len(ps))
	for _, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x, err := p.Start(context.Background(), SendOptions{})
			var r *Refusal
			switch {
			case err == nil:
				_, _ = x.Finish()
				sends <- x
			case errors.As(err, &r) && r.Rule == RuleOnce:
				refused <- r
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	close(sends)
	close(refused)
	var ids []string
	for x := range sends {
		ids = append(ids, x.ID())
	}
	if len(ids) != 1 || len(refused) != len(ps)-1 {
		t.Fatalf("%d sends (%v), %d refused; want 1 and %d", len(ids), ids, len(refused), len(ps)-1)
	}
	for r := range refused {
		if r.Once.SendID != ids[0] || !r.Once.SamePairs {
			t.Errorf("refused naming %+v, want send %s", r.Once, ids[0])
		}
	}
	if n := v.sb.RequestsTo("POST", "/sms/send-pair"); n != 1 {
		t.Errorf("%d send requests, want 1", n)
	}
}
