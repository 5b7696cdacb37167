package ledger

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// TestLineKinds (issue 42 §6), on both backends: a line's kind is
// recorded, changed and removed, each with its audit entry in the same
// transaction (told the kind the line had); accounts keep their own; the
// lines of a profile's sends are read once each; a kind this smsdesk does
// not know is refused, never read as none.
func TestLineKinds(t *testing.T) {
	ctx := context.Background()
	each(t, func(t *testing.T, l *Ledger, _ string) {
		op := &model.Operator{Name: "sara", Fingerprint: "SHA256:x"}
		var was []model.LineKind
		audit := func(w model.LineKind) AuditEntry {
			was = append(was, w)
			body, _ := json.Marshal(map[string]string{"action": "line_kind", "was": string(w)})
			return AuditEntry{Time: t0, Action: "line_kind", Body: body}
		}
		set := func(acct, line string, k model.LineKind) {
			t.Helper()
			if _, err := l.SetLineKind(ctx, LineKindChange{Account: acct, Line: line, Kind: k, At: t0, Operator: op}, audit); err != nil {
				t.Fatalf("SetLineKind %s %s: %v", line, k, err)
			}
		}
		set("acct1", "3000", model.LineAdvertising)
		set("acct1", "3000", model.LineService)
		set("acct1", "4000", model.LineAdvertising)
		set("acct2", "3000", model.LineAdvertising)
		if k, err := l.LineKindOf(ctx, "acct1", "3000"); err != nil || k != model.LineService {
			t.Errorf("acct1 3000: %q %v, want service", k, err)
		}
		if k, err := l.LineKindOf(ctx, "acct2", "3000"); err != nil || k != model.LineAdvertising {
			t.Errorf("acct2 3000: %q %v, want advertising (accounts apart)", k, err)
		}
		set("acct1", "4000", "")
		if k, err := l.LineKindOf(ctx, "acct1", "4000"); err != nil || k != "" {
			t.Errorf("acct1 4000 after removal: %q %v, want none", k, err)
		}
		if got := strings.Join([]string{string(was[0]), string(was[1]), string(was[2]), string(was[3]), string(was[4])}, ","); got != ",advertising,,,advertising" {
			t.Errorf("the audit was told %q", got)
		}
		kinds, err := l.LineKinds(ctx, "acct1")
		if err != nil || len(kinds) != 1 || kinds[0].Line != "3000" || kinds[0].Kind != model.LineService ||
			!kinds[0].SetAt.Equal(t0) || !strings.Contains(kinds[0].Operator, "sara") {
			t.Errorf("LineKinds = %+v, %v", kinds, err)
		}
		entries, err := l.ListAudit(ctx, 0, 0)
		if err != nil || len(entries) != 5 {
			t.Errorf("audit entries %d, %v; want 5", len(entries), err)
		}

		for _, id := range []string{"s1", "s2", "s3"} {
			p := plan(id, 1, time.Time{})
			if id == "s2" {
				p.Sender = "5000"
			}
			if _, err := l.CreateSend(ctx, id, p, "t", 0); err != nil {
				t.Fatal(err)
			}
		}
		if lines, err := l.SendLines(ctx, "acct1", "work"); err != nil || strings.Join(lines, ",") != "3000,5000" {
			t.Errorf("SendLines = %v, %v", lines, err)
		}
		if lines, err := l.SendLines(ctx, "acct1", "other"); err != nil || len(lines) != 0 {
			t.Errorf("another profile's SendLines = %v, %v", lines, err)
		}

		if _, err := l.db.ExecContext(ctx, l.q("UPDATE lines SET kind = 'dedicated' WHERE line = '3000'")); err != nil {
			t.Fatal(err)
		}
		if _, err := l.LineKindOf(ctx, "acct1", "3000"); err == nil || !strings.Contains(err.Error(), "lines set 3000") {
			t.Errorf("an unknown kind read: %v, want refused", err)
		}
		if _, err := l.LineKinds(ctx, "acct1"); err == nil {
			t.Error("an unknown kind listed")
		}
	})
}
