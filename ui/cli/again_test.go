package cli

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// TestResumeUnknownGoesAgainAsItWent: --resume ID --include-unknown sends a
// chunk whose answer was lost again as it went (same items, same order,
// same Idempotency-Key), says so before sending, and a service that honours
// the key (sandbox --idempotency) sends nothing twice, even under another
// --chunk-size (issue 27 item 3: the resend used a fresh key, and copies
// went out).
func TestResumeUnknownGoesAgainAsItWent(t *testing.T) {
	t.Parallel()
	e := newSendEnvOpts(t, sandbox.Options{Idempotency: true, DropEvery: 2}, nil)
	file := e.pairsFile(t, "pairs.csv", 4, nil)
	code, out, stderr := e.run(t, "send-pair", "--sender", sandbox.DefaultSender, "--file", file, "--yes", "--json", "--chunk-size", "2")
	rep := decodeReport(t, out)
	if code != ExitUnknown || !slices.Equal(statuses(rep), []string{"accepted", "accepted", "unknown", "unknown"}) {
		t.Fatalf("first run: exit %d, %v (stderr %s)", code, statuses(rep), stderr)
	}
	// The sandbox loses every second answer: the chunk sent again is the
	// third request, and answered.
	code, out, stderr = e.run(t, "send-pair", "--resume", rep.sendID(), "--include-unknown", "--yes", "--chunk-size", "1")
	if code != 0 || !strings.Contains(stderr, "2 of them go again as they first went (their whole chunk, in the same order, under the same Idempotency-Key)") {
		t.Fatalf("resume --include-unknown: exit %d\n%s\n%s", code, out, stderr)
	}
	out, _ = e.mustRun(t, 0, "history", "show", rep.sendID(), "--json")
	if res := decodeReport(t, out); res.Counts.Accepted != 4 {
		t.Errorf("after the resume: %+v, want 4 accepted", res.Counts)
	}
	sentOnce(t, e.sb, recipients(0, 4))
}

// TestResumeSaysWhatCannotGoAgainAsItWent: unknown items whose chunk had
// others answered since (or whose request the journal lacks) cannot go
// again as they went; --include-unknown says so before anything is sent.
func TestResumeSaysWhatCannotGoAgainAsItWent(t *testing.T) {
	t.Parallel()
	e := newSendEnv(t, nil)
	paths := config.PathsIn(e.env["SMSDESK_CONFIG_DIR"], e.env["SMSDESK_STATE_DIR"])
	const id = "20260101-120000-aaaaaa"
	j, err := config.CreateJournal(t.Context(), paths, id)
	if err != nil {
		t.Fatal(err)
	}
	plan := &model.JournalPlan{ID: id, Time: time.Now().Add(-time.Hour), Profile: "default", Sender: sandbox.DefaultSender, ChunkSize: 2}
	for i := range 4 {
		plan.Items = append(plan.Items, model.JournalItem{Index: i, Recipient: fmt.Sprintf("0912111000%d", i), Message: fmt.Sprintf("code %d", i), Parts: 1})
	}
	for _, r := range []model.JournalRecord{plan,
		&model.JournalIntent{Chunk: 0, Indexes: []int{0, 1}, Key: "smsdesk-" + id + "-0"},
		&model.JournalOutcome{Chunk: 0, Results: []model.JournalResult{{Index: 0, State: model.StateAccepted, MessageID: "m0"}, {Index: 1, State: model.StateUnknown}}},
		&model.JournalIntent{Chunk: 1, Indexes: []int{2, 3}, Key: "smsdesk-" + id + "-1"},
		&model.JournalEnd{Interrupted: true},
	} {
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := e.run(t, "send-pair", "--resume", id, "--include-unknown", "--dry-run")
	for _, want := range []string{
		"2 of them go again as they first went",
		"! 1 of them cannot go again as they first went; they would go in new chunks under new keys",
		"1 recipient(s): 1 of the 2 items of chunk 0 have an outcome since",
	} {
		if code != 0 || !strings.Contains(stderr, want) {
			t.Errorf("resume --include-unknown --dry-run: exit %d, stderr lacks %q:\n%s", code, want, stderr)
		}
	}
}
