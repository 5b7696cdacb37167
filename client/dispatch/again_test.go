package dispatch_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// sentRequest is one send-pair request as the service saw it.
type sentRequest struct {
	key        string
	recipients []string
}

// losingNth records every send-pair request and loses the answers of the
// ones whose number (from 1) is in lose: the service acts on them and the
// caller hears nothing.
func losingNth(mu *sync.Mutex, seen *[]sentRequest, lose ...int64) func(http.Handler) http.Handler {
	var n atomic.Int64
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !isSendPair(r) {
				next.ServeHTTP(w, r)
				return
			}
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var req struct {
				Items []struct {
					Recipient string `json:"recipient"`
				} `json:"items"`
			}
			_ = json.Unmarshal(body, &req)
			sr := sentRequest{key: r.Header.Get("Idempotency-Key")}
			for _, it := range req.Items {
				sr.recipients = append(sr.recipients, it.Recipient)
			}
			mu.Lock()
			*seen = append(*seen, sr)
			mu.Unlock()
			k := n.Add(1)
			for _, l := range lose {
				if k == l {
					sandbox.ServeThenLose(next, w, r)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// TestUnknownChunkGoesAgainAsItWent: a resume with the unknown items sends
// the chunk whose answer was lost again as it went — the same items in the
// same order under the same Idempotency-Key — even with another chunk size,
// so a service that honours the key (the sandbox here) drops the copy: no
// recipient gets two messages, and the items end accepted with the first
// try's message ids (issue 27 item 3: each went under a fresh key, and 80
// kill -9s plus --include-unknown made 190 copies).
func TestUnknownChunkGoesAgainAsItWent(t *testing.T) {
	var mu sync.Mutex
	var seen []sentRequest
	e := newEnv(t, sandbox.Options{Idempotency: true}, losingNth(&mu, &seen, 2))
	p, j := newJournal(t, "again")
	job := dispatch.NewJob("again", sandbox.DefaultSender, items(10, 0))
	run, err := dispatch.Start(ctxTimeout(t, waitLimit), e.client(t), job, dispatch.Options{ChunkSize: 3, Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	if _, sum := drain(t, run); sum.Counts.Unknown != 3 || sum.Counts.Accepted != 7 {
		t.Fatalf("first run: %+v, want 3 unknown (chunk 1) and 7 accepted", sum.Counts)
	}
	j.Close()
	st := replayState(t, p, "again")
	chunks := st.UnknownChunks()
	if len(chunks) != 1 || !chunks[0].Whole || chunks[0].Chunk != 1 || chunks[0].Key != "smsdesk-again-1" {
		t.Fatalf("unknown chunks %+v, want chunk 1 whole under its key", chunks)
	}

	rj, fresh, err := config.OpenJournalLocked(t.Context(), p, "again")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rj.Close() })
	again := dispatch.ResumeJob(fresh, true)
	run, err = dispatch.Start(ctxTimeout(t, waitLimit), e.client(t), again, dispatch.Options{ChunkSize: 2, Journal: rj})
	if err != nil {
		t.Fatal(err)
	}
	_, sum := drain(t, run)
	if sum.Counts.Accepted != 10 || sum.Counts.Unknown != 0 {
		t.Errorf("resume: %+v, want all 10 accepted", sum.Counts)
	}
	if unknown := checkAgainstServer(t, e.sb, run.Results()); unknown != 0 {
		t.Errorf("%d unknown after the resume", unknown)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 5 {
		t.Fatalf("%d send-pair requests, want 4 and the lost one again", len(seen))
	}
	first, last := seen[1], seen[4]
	if last.key != first.key || strings.Join(last.recipients, ",") != strings.Join(first.recipients, ",") {
		t.Errorf("sent again as key %s %v; first went as key %s %v", last.key, last.recipients, first.key, first.recipients)
	}
	for i, it := range run.Results() {
		if it.MessageID == "" && it.State == model.StateAccepted {
			t.Errorf("item %d accepted without a message id", i)
		}
	}
}

// TestUnknownChunkRefusedWholeStaysUnknown: an unknown chunk sent again as
// it went that the service now refuses as too big (413) is not split into
// new chunks under new keys: its items stay unknown, in the run and in the
// journal, saying why (a split would have sent them where the first try's
// key cannot catch a copy).
func TestUnknownChunkRefusedWholeStaysUnknown(t *testing.T) {
	var mu sync.Mutex
	var seen []sentRequest
	var tooBig atomic.Bool
	lose := losingNth(&mu, &seen, 1)
	e := newEnv(t, sandbox.Options{}, func(next http.Handler) http.Handler {
		lost := lose(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isSendPair(r) && tooBig.Load() {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusRequestEntityTooLarge)
				_, _ = w.Write([]byte(`{"success":false,"error_code":"payload_too_large","message":"too big"}`))
				return
			}
			lost.ServeHTTP(w, r)
		})
	})
	p, j := newJournal(t, "big")
	run, err := dispatch.Start(ctxTimeout(t, waitLimit), e.client(t), dispatch.NewJob("big", sandbox.DefaultSender, items(4, 0)), dispatch.Options{ChunkSize: 4, Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	if _, sum := drain(t, run); sum.Counts.Unknown != 4 {
		t.Fatalf("first run: %+v, want 4 unknown", sum.Counts)
	}
	j.Close()
	tooBig.Store(true)
	rj, fresh, err := config.OpenJournalLocked(t.Context(), p, "big")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rj.Close() })
	run, err = dispatch.Start(ctxTimeout(t, waitLimit), e.client(t), dispatch.ResumeJob(fresh, true), dispatch.Options{ChunkSize: 4, Journal: rj})
	if err != nil {
		t.Fatal(err)
	}
	_, sum := drain(t, run)
	rj.Close()
	st := replayState(t, p, "big")
	if sum.Counts.Unknown != 4 || st.Counts().Unknown != 4 || !strings.Contains(st.Items[0].Error, "cannot go again as it first went") {
		t.Errorf("after a 413 on the chunk sent again: run %+v, journal %+v, %q; want 4 unknown", sum.Counts, st.Counts(), st.Items[0].Error)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 { // the 413s are answered before the recorder
		t.Errorf("%d requests reached the recorder, want the first only (the chunk was not split)", len(seen))
	}
}

// TestOptedOutSinceBreaksTheChunkSentAgain: a resume with the unknown items
// whose whole unknown chunk holds a recipient put on the opt-out list since
// does not send that chunk again as it went (it would reach the opted-out
// recipient): the opted-out item is not sent again and stays unknown (it
// may have gone the first time), in the run and in the journal, and the
// chunk's other items go apart, under new keys.
func TestOptedOutSinceBreaksTheChunkSentAgain(t *testing.T) {
	var mu sync.Mutex
	var seen []sentRequest
	e := newEnv(t, sandbox.Options{Idempotency: true}, losingNth(&mu, &seen, 2))
	p, j := newJournal(t, "out")
	run, err := dispatch.Start(ctxTimeout(t, waitLimit), e.client(t), dispatch.NewJob("out", sandbox.DefaultSender, items(6, 0)), dispatch.Options{ChunkSize: 3, Journal: j})
	if err != nil {
		t.Fatal(err)
	}
	if _, sum := drain(t, run); sum.Counts.Unknown != 3 {
		t.Fatalf("first run: %+v, want chunk 1's 3 unknown", sum.Counts)
	}
	j.Close()
	rj, fresh, err := config.OpenJournalLocked(t.Context(), p, "out")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rj.Close() })
	out := fresh.Items[4] // chunk 1 is items 3, 4 and 5
	job := dispatch.ResumeJob(fresh, true)
	job.OptOut([]int{out.Index})
	if len(job.Again()) != 0 || slices.Contains(job.ToSend(), out.Index) || len(job.ToSend()) != 2 {
		t.Fatalf("again %+v, to send %v: want no chunk sent again as it went, and items 3 and 5 only", job.Again(), job.ToSend())
	}
	run, err = dispatch.Start(ctxTimeout(t, waitLimit), e.client(t), job, dispatch.Options{ChunkSize: 3, Journal: rj})
	if err != nil {
		t.Fatal(err)
	}
	_, sum := drain(t, run)
	rj.Close()
	if st := replayState(t, p, "out"); st.Items[4].State != model.StateUnknown || run.Results()[4].State != model.StateUnknown ||
		sum.Counts.Unknown != 1 || sum.Counts.Accepted != 5 {
		t.Errorf("the opted-out item is %s in the journal, %s in the run (%+v); want unknown, the rest accepted", st.Items[4].State, run.Results()[4].State, sum.Counts)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, r := range seen[2:] {
		if slices.Contains(r.recipients, out.Recipient) || r.key == seen[1].key {
			t.Errorf("resume request %d: key %s, %v; the opted-out %s must not be sent to, nor the chunk go as it went (%s)", i, r.key, r.recipients, out.Recipient, seen[1].key)
		}
	}
}
