package dispatch_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// waitLimit bounds the tests' waits on a run, a server or a process. It
// guards against a hang and is no budget: a machine busy with other work
// (load 17-29 on 2 cores, under -race) takes longer than the 5 to 40 s that
// stood here.
const waitLimit = 3 * time.Minute

// config's journal file is the engine's journal (checked at compile time).
var _ dispatch.Journal = (*config.JournalFile)(nil)

// *client.Client is the engine's client.
var _ dispatch.Client = (*client.Client)(nil)

// env is a sandbox behind an optional fault-injecting wrapper, on loopback.
type env struct {
	sb   *sandbox.Server
	base string
}

func newEnv(t testing.TB, opts sandbox.Options, wrap func(http.Handler) http.Handler) *env {
	t.Helper()
	sb, err := sandbox.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h := sb.Handler()
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &env{sb: sb, base: srv.URL + "/api/v1"}
}

// client returns an unpaced client for the sandbox.
func (e *env) client(t testing.TB, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(e.base, e.sb.Key(), append([]client.Option{client.WithRatePerMinute(0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// items makes n distinct valid pairs; every rejectEvery-th (when > 0) has a
// message the service refuses (over 600 characters).
func items(n, rejectEvery int) []model.JournalItem {
	out := make([]model.JournalItem, n)
	for i := range out {
		msg := fmt.Sprintf("سلام %d, your code is %04d", i, i*7%10000)
		if rejectEvery > 0 && i%rejectEvery == rejectEvery-1 {
			msg = strings.Repeat("x", 601)
		}
		out[i] = model.JournalItem{Index: i, Recipient: fmt.Sprintf("0912%07d", i+1), Message: msg}
	}
	return out
}

// drain reads a run's events until the channel closes and waits for it.
func drain(t testing.TB, run *dispatch.Run) ([]dispatch.Event, dispatch.Summary) {
	t.Helper()
	var evs []dispatch.Event
	for ev := range run.Events() {
		evs = append(evs, ev)
	}
	sum, err := run.Wait()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return evs, sum
}

// newJournal creates a real journal in a ledger in a temp state dir.
func newJournal(t testing.TB, id string) (config.Paths, *config.JournalFile) {
	t.Helper()
	p := config.PathsIn(t.TempDir(), filepath.Join(t.TempDir(), "state"))
	t.Cleanup(func() { p.CloseLedger() })
	j, err := config.CreateJournal(t.Context(), p, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return p, j
}

type sentKey struct{ recipient, message string }

// sentCounts counts what the sandbox really sent, per (recipient, message).
func sentCounts(sb *sandbox.Server) map[sentKey][]string {
	m := map[sentKey][]string{}
	for _, s := range sb.Sent() {
		k := sentKey{s.Recipient, s.Message}
		m[k] = append(m[k], s.MessageID)
	}
	return m
}

// checkAgainstServer asserts no duplicate and that every result agrees with
// what the sandbox delivered: accepted ⇒ sent (same id), rejected, failed or
// queued ⇒ not sent. It returns the number of unknown items.
func checkAgainstServer(t *testing.T, sb *sandbox.Server, results []model.SentItem) (unknown int) {
	t.Helper()
	sent := sentCounts(sb)
	for k, ids := range sent {
		if len(ids) > 1 {
			t.Errorf("sent %d times: %v (%v)", len(ids), k, ids)
		}
	}
	for _, r := range results {
		ids := sent[sentKey{r.Recipient, r.Message}]
		switch r.State {
		case model.StateAccepted:
			if len(ids) == 0 || r.MessageID != "" && ids[0] != r.MessageID {
				t.Errorf("item %d accepted as %q but the server sent %v", r.Index, r.MessageID, ids)
			}
		case model.StateRejected, model.StateFailed, model.StateQueued:
			if len(ids) != 0 {
				t.Errorf("item %d %s but the server sent it (%v)", r.Index, r.State, ids)
			}
		case model.StateUnknown:
			unknown++
		default:
			t.Errorf("item %d left %s", r.Index, r.State)
		}
	}
	return unknown
}

// replayState reads a journal back and returns the per-index states.
func replayState(t *testing.T, p config.Paths, id string) *model.JournalState {
	t.Helper()
	st, err := config.ReadJournal(t.Context(), p, id)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func ctxTimeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
