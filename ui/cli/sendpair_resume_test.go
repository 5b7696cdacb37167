package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// scripted passes requests to the sandbox, except that the n-th send-pair
// call (1-based, counted over the test's life) does what faults[n] says:
// "500" answers 500 without processing (outcome unknown, nothing sent);
// "stop" processes and answers, but first cancels the CLI's context, as
// SIGINT would, so the send stops after this chunk.
type scripted struct {
	mu     sync.Mutex
	calls  int
	faults map[int]string
	cancel context.CancelFunc
}

func (s *scripted) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/sms/send-pair") {
			next.ServeHTTP(w, r)
			return
		}
		s.mu.Lock()
		s.calls++
		fault, cancel := s.faults[s.calls], s.cancel
		s.mu.Unlock()
		switch fault {
		case "500":
			http.Error(w, "provider error", http.StatusInternalServerError)
			return
		case "stop":
			cancel()
		}
		next.ServeHTTP(w, r)
	})
}

func (s *scripted) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// sentOnce asserts the sandbox delivered every pair of want exactly once and
// nothing else, and returns its message id per recipient.
func sentOnce(t *testing.T, sb *sandbox.Server, want []string) map[string]string {
	t.Helper()
	ids := map[string]string{}
	var got []string
	for _, m := range sb.Sent() {
		if _, dup := ids[m.Recipient]; dup {
			t.Errorf("%s delivered twice", m.Recipient)
		}
		ids[m.Recipient] = m.MessageID
		got = append(got, m.Recipient)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the service delivered to %v, want %v", got, want)
	}
	return ids
}

// recipients are pairsFile's recipients for indexes lo…hi-1.
func recipients(lo, hi int) []string {
	var out []string
	for i := lo; i < hi; i++ {
		out = append(out, fmt.Sprintf("0912%07d", i+1))
	}
	return out
}

// serviceDelivery asks the sandbox itself (plain net/http, not our client)
// for a message's delivery status.
func (e *sendEnv) serviceDelivery(t *testing.T, messageID string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.base+"/api/v1/sms/"+messageID+"/status", nil)
	req.Header.Set("Authorization", "Bearer "+e.sb.Key())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body struct {
		Data struct {
			Status string `json:"status"`
		} `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != 200 {
		t.Fatalf("status of %s: %s, %v", messageID, res.Status, err)
	}
	return body.Data.Status
}

func decodeReport(t *testing.T, out string) sendPairJSON {
	t.Helper()
	var rep sendPairJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, out)
	}
	return rep
}

func statuses(rep sendPairJSON) []string {
	out := make([]string, len(rep.Results))
	for i, r := range rep.Results {
		out[i] = r.Status
	}
	return out
}

// TestSendPairResumeAfterInterrupt: a send stopped after its second chunk is
// listed as interrupted; --resume sends only what never went, and the service
// ends with every pair exactly once.
func TestSendPairResumeAfterInterrupt(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sc := &scripted{faults: map[int]string{2: "stop"}, cancel: cancel}
	e := newSendEnv(t, sc.wrap)
	file := e.pairsFile(t, "pairs.csv", 10, nil)

	code, out, stderr := e.runCtx(t, ctx, "send-pair", "--sender", sandbox.DefaultSender, "--file", file, "--yes", "--json", "--chunk-size", "2")
	rep := decodeReport(t, out)
	want := []string{"accepted", "accepted", "accepted", "accepted", "not_sent", "not_sent", "not_sent", "not_sent", "not_sent", "not_sent"}
	if code == 0 || !rep.Interrupted || !slices.Equal(statuses(rep), want) || sc.count() != 2 {
		t.Fatalf("first run: exit %d, interrupted %v, %v after %d requests; want %v (stderr %s)",
			code, rep.Interrupted, statuses(rep), sc.count(), want, stderr)
	}
	first := sentOnce(t, e.sb, recipients(0, 4))
	if rep.Resume == nil || !strings.Contains(*rep.Resume, "--resume "+rep.sendID()) {
		t.Errorf("report's resume hint %v does not name --resume %s", rep.Resume, rep.sendID())
	}
	code, out, _ = e.run(t, "history", "--json")
	var hist []historyJSON
	if err := json.Unmarshal([]byte(out), &hist); err != nil || code != 0 || len(hist) != 1 ||
		hist[0].Status != "interrupted" || hist[0].Counts.Accepted != 4 || hist[0].Counts.NotSent != 6 {
		t.Fatalf("history: exit %d, %v: %s", code, err, out)
	}

	code, out, stderr = e.run(t, "send-pair", "--resume", rep.sendID(), "--yes", "--json")
	res := decodeReport(t, out)
	if code != 0 || res.sendID() != rep.sendID() || res.Interrupted || res.Counts.Accepted != 10 || res.Counts.Total != 10 {
		t.Fatalf("resume: exit %d, %+v (stderr %s)", code, res.Counts, stderr)
	}
	if n := sc.count(); n != 2+3 {
		t.Errorf("resume made %d send-pair requests, want 3 (six items in chunks of 2)", n-2)
	}
	all := sentOnce(t, e.sb, recipients(0, 10))
	for _, r := range res.Results[:4] {
		if r.MessageID != first[r.Recipient] || all[r.Recipient] != first[r.Recipient] {
			t.Errorf("%s: message id %q after resume, %q before: the first run's items went again", r.Recipient, r.MessageID, first[r.Recipient])
		}
	}
	code, out, _ = e.run(t, "history", "--json")
	if err := json.Unmarshal([]byte(out), &hist); err != nil || code != 0 || hist[0].Status != "complete" || hist[0].Counts.Accepted != 10 {
		t.Errorf("history after resume: exit %d, %v: %s", code, err, out)
	}
}

// TestSendPairResumeUnknownItems: items whose outcome is unknown are listed
// and left alone by --resume; --include-unknown sends them again only with a
// confirmation (--yes here, no terminal to ask).
func TestSendPairResumeUnknownItems(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Chunk 2 gets a 500 before the service processes it: unknown to the
	// engine, not delivered in truth. Chunk 3 is the last before the stop.
	sc := &scripted{faults: map[int]string{2: "500", 3: "stop"}, cancel: cancel}
	e := newSendEnv(t, sc.wrap)
	file := e.pairsFile(t, "pairs.csv", 8, nil)

	code, out, stderr := e.runCtx(t, ctx, "send-pair", "--sender", sandbox.DefaultSender, "--file", file, "--yes", "--json", "--chunk-size", "2")
	rep := decodeReport(t, out)
	want := []string{"accepted", "accepted", "unknown", "unknown", "accepted", "accepted", "not_sent", "not_sent"}
	if code != ExitUnknown || !slices.Equal(statuses(rep), want) {
		t.Fatalf("first run: exit %d, %v; want %d, %v (stderr %s)", code, statuses(rep), ExitUnknown, want, stderr)
	}
	sentOnce(t, e.sb, append(recipients(0, 2), recipients(4, 6)...))
	unknown := recipients(2, 4)

	// Without --include-unknown: listed (for people, on stderr), not sent;
	// the never-sent ones go. The outcome is read back with history show.
	code, _, stderr = e.run(t, "send-pair", "--resume", rep.sendID(), "--yes")
	out, _ = e.mustRun(t, 0, "history", "show", rep.sendID(), "--json")
	res := decodeReport(t, out)
	if code != ExitUnknown || !strings.Contains(stderr, "will NOT be sent again") {
		t.Fatalf("resume: exit %d, want %d; stderr %s", code, ExitUnknown, stderr)
	}
	for _, r := range unknown {
		if !strings.Contains(stderr, r) {
			t.Errorf("unknown recipient %s not listed: %s", r, stderr)
		}
	}
	want = []string{"accepted", "accepted", "unknown", "unknown", "accepted", "accepted", "accepted", "accepted"}
	if !slices.Equal(statuses(res), want) {
		t.Errorf("after resume: %v, want %v", statuses(res), want)
	}
	sentOnce(t, e.sb, append(recipients(0, 2), recipients(4, 8)...))

	// --include-unknown without --yes and without a terminal: refused, nothing sent.
	before := sc.count()
	code, _, stderr = e.run(t, "send-pair", "--resume", rep.sendID(), "--include-unknown")
	if code != ExitUsage || !strings.Contains(stderr, "--yes") || sc.count() != before {
		t.Fatalf("--include-unknown without confirmation: exit %d, %d requests; stderr %s", code, sc.count()-before, stderr)
	}

	// Confirmed: the unknown items go again, the rest stays as it was.
	// With --json, stderr stays empty when all went well: only an error
	// object ever goes there.
	code, out, stderr = e.run(t, "send-pair", "--resume", rep.sendID(), "--include-unknown", "--yes", "--json")
	res = decodeReport(t, out)
	if code != 0 || stderr != "" || res.Counts.Accepted != 8 || res.Counts.Unknown != 0 {
		t.Fatalf("--include-unknown --yes: exit %d, %+v; stderr %s", code, res.Counts, stderr)
	}
	if n := sc.count() - before; n != 1 {
		t.Errorf("--include-unknown made %d requests, want 1 (the two unknown items)", n)
	}
	sentOnce(t, e.sb, recipients(0, 8))
}

// TestHistoryShowRefresh: --refresh asks the sandbox for delivery states and
// records them in the journal, so a later plain show has them too.
func TestHistoryShowRefresh(t *testing.T) {
	t.Parallel()
	e := newSendEnvOpts(t, sandbox.Options{DeliveryDelay: -1}, nil)
	// The sandbox fails delivery to numbers ending in 0000.
	file := e.pairsFile(t, "pairs.csv", 5, map[int]string{2: "09121230000"})
	code, out, stderr := e.run(t, "send-pair", "--sender", sandbox.DefaultSender, "--file", file, "--yes", "--json")
	rep := decodeReport(t, out)
	if code != 0 || rep.Counts.Accepted != 5 {
		t.Fatalf("send: exit %d, %+v (stderr %s)", code, rep.Counts, stderr)
	}
	show := func(args ...string) historyShowJSON {
		t.Helper()
		code, out, stderr := e.run(t, append([]string{"history", "show", rep.sendID(), "--json"}, args...)...)
		var sh historyShowJSON
		if err := json.Unmarshal([]byte(out), &sh); err != nil || code != 0 || len(sh.Results) != 5 {
			t.Fatalf("history show %v: exit %d, %v: %s %s", args, code, err, out, stderr)
		}
		return sh
	}
	if sh := show(); sh.Counts.Delivered != 0 || sh.Results[0].Delivery != "pending" {
		t.Fatalf("delivery known before any refresh: %+v", sh.Counts)
	}
	refreshed := show("--refresh")
	plain := show()
	for _, sh := range []historyShowJSON{refreshed, plain} {
		delivered := 0
		for _, r := range sh.Results {
			if want := e.serviceDelivery(t, r.MessageID); r.Delivery != want {
				t.Errorf("%s: delivery %q, the service says %q", r.Recipient, r.Delivery, want)
			}
			if strings.HasSuffix(r.Recipient, "0000") && r.Delivery != "failed" {
				t.Errorf("%s: delivery %q, want failed", r.Recipient, r.Delivery)
			}
			if r.Delivery == "delivered" {
				delivered++
			}
		}
		if sh.Counts.Delivered != delivered || sh.Counts.Delivered+sh.Counts.Undelivered != 5 {
			t.Errorf("counts %+v, %d delivered in the list", sh.Counts, delivered)
		}
	}
}
