package app

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/syncbuf"
)

func operator(name string, role model.Role) *model.Operator {
	return &model.Operator{Name: name, Fingerprint: "SHA256:" + name + "fp", Role: role}
}

// TestRoles: each action is allowed from the role it needs up; a refused
// one names that role and reaches no service.
func TestRoles(t *testing.T) {
	v := newService(t, sandbox.Options{})
	paths := tempPaths(t)
	s := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
	ctx := context.Background()
	g0, err := s.CreateGroup(ctx, NewGroup{Name: "tehran"}) // no operator: this machine's own terminal
	if err != nil {
		t.Fatal(err)
	}
	gid := g0.ID

	s.Operator = operator("vida", model.RoleViewer)
	before := v.sb.Requests()
	plan := s.Plan(s.Profile.Sender, pairs(2))
	_, err = s.PrepareSend(ctx, SendRequest{Plan: plan, Source: FileSource("pairs.csv")})
	var r *Refusal
	if !errors.As(err, &r) || r.Rule != RuleRole || !strings.Contains(r.Reason, "sending needs the sender role (vida is a viewer)") ||
		r.Action != ActionSend || r.Needs != model.RoleSender || r.Operator != "vida" {
		t.Fatalf("viewer send: %#v", err)
	}
	for _, err := range []error{
		func() error { _, err := s.AddContact(ctx, gid, "09121110001", "A"); return err }(),
		func() error { _, err := s.PreviewImport(ctx, gid, nil); return err }(),
		func() error { _, err := s.PrepareResume(t.Context(), "x", ResumeOptions{}); return err }(),
		s.DeleteContact(ctx, gid, "1"),
		func() error { _, err := s.CreateGroup(ctx, NewGroup{Name: "g"}); return err }(),
		func() error { _, err := s.TrackGroup(ctx, gid, "g"); return err }(),
		func() error { _, err := s.UntrackGroup(t.Context(), gid); return err }(),
	} {
		if !errors.As(err, &r) || r.Rule != RuleRole {
			t.Errorf("viewer: %v, want a role refusal", err)
		}
	}
	rows := []model.ImportRow{{Line: 2, Mobile: "09121110001"}}
	if sum := s.Import(ctx, gid, rows, nil); sum.NotAttempted != 1 || !strings.Contains(rows[0].Error, "needs the sender role") {
		t.Errorf("viewer import: %+v %+v", sum, rows)
	}
	if n := v.sb.Requests() - before; n != 0 {
		t.Fatalf("a viewer's refused actions made %d requests", n)
	}

	s.Operator = operator("sara", model.RoleSender)
	if _, err := s.AddContact(ctx, gid, "09121110001", "A"); err != nil {
		t.Fatalf("sender adds a contact: %v", err)
	}
	if found, err := s.UntrackGroup(t.Context(), gid); err != nil || !found {
		t.Fatalf("sender untracks a group: %v, %v", found, err)
	}
	if _, err := s.TrackGroup(ctx, gid, "tehran"); err != nil {
		t.Fatalf("sender tracks a group: %v", err)
	}
	if err := s.DeleteContact(ctx, gid, "1"); !errors.As(err, &r) || !strings.Contains(r.Reason, "deleting a contact needs the admin role (sara is a sender)") {
		t.Errorf("sender deletes: %v", err)
	}
	s.Operator = operator("ali", model.RoleAdmin)
	g, err := s.CreateGroup(ctx, NewGroup{Name: "spring"})
	if err != nil {
		t.Fatalf("admin creates a group: %v", err)
	}
	// the audit file names who did what, and holds no key
	data, err := config.AuditText(t.Context(), paths)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var recs []config.AuditRecord
	for _, l := range lines {
		var rec config.AuditRecord
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("audit line %s: %v", l, err)
		}
		recs = append(recs, rec)
	}
	// this terminal's group, then sara's add, untrack and track, then ali's group
	want := []struct {
		action, operator string
		id               model.ID
	}{{"create_group", "", gid}, {"add_contact", "sara", ""}, {"untrack_group", "sara", gid}, {"track_group", "sara", gid}, {"create_group", "ali", g.ID}}
	if len(recs) != len(want) {
		t.Fatalf("audit: %s", data)
	}
	for i, w := range want {
		r := recs[i]
		name := ""
		if r.Operator != nil {
			name = r.Operator.Name
		}
		if r.Action != w.action || name != w.operator || (w.id != "" && r.ID != w.id) || r.Profile != "live" || r.Error != "" {
			t.Errorf("audit line %d: %s, want %s by %q", i+1, lines[i], w.action, w.operator)
		}
	}
	if op := recs[4].Operator; op.Fingerprint != "SHA256:alifp" || op.Role != model.RoleAdmin || recs[4].Name != "spring" {
		t.Errorf("ali's record: %s", lines[4])
	}
	if strings.Contains(string(data), v.sb.Key()) {
		t.Error("the API key is in the audit file")
	}
	loc, _ := paths.LedgerLocation()
	if fi, _ := os.Stat(loc); fi.Mode().Perm() != 0o600 {
		t.Errorf("ledger file mode %v", fi.Mode())
	}
}

// TestOperatorJournaled: a served session's send names its operator and key
// fingerprint in the journal (not the role), as history reads it.
func TestOperatorJournaled(t *testing.T) {
	v := newService(t, sandbox.Options{})
	paths := tempPaths(t)
	s := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
	s.Operator = operator("sara", model.RoleSender)
	out := send(t, s, pairs(2))
	st, err := config.ReadJournal(t.Context(), paths, out.Summary.JobID)
	if err != nil {
		t.Fatal(err)
	}
	if op := st.Plan.Operator; op == nil || op.Name != "sara" || op.Fingerprint != "SHA256:sarafp" || op.Role != "" {
		t.Errorf("journal's operator: %+v", op)
	}
}

// TestGateAcrossSessions: two operators' sessions on one server check the
// same pairs, then both start (with the facts they were checked with, as
// both faces do): the first goes, the second is refused naming the first
// send and its operator, the server's log says so, and nothing goes twice.
func TestGateAcrossSessions(t *testing.T) {
	v := newService(t, sandbox.Options{})
	paths := tempPaths(t)
	var log syncbuf.Buffer // the tracker logs a send's end from its own goroutine
	sends := &SendTracker{Log: slog.New(slog.NewTextHandler(&log, nil))}
	prof := &config.Profile{Name: "live", Sender: sandbox.DefaultSender}
	a, b := v.session(t, paths, prof), v.session(t, paths, prof)
	a.Operator, a.Tracker = operator("sara", model.RoleSender), sends
	b.Operator, b.Tracker = operator("reza", model.RoleSender), sends
	ctx := context.Background()
	pa, pb := prepare(t, a, pairs(3), false), prepare(t, b, pairs(3), false)
	if pa.Refusal != nil || pb.Refusal != nil { // both see no repeat yet
		t.Fatal(pa.Refusal, pb.Refusal)
	}
	x, err := pa.Start(ctx, SendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = pb.Start(ctx, SendOptions{})
	var r *Refusal
	if !errors.As(err, &r) || r.Rule != RuleRepeat || !strings.Contains(r.Reason, "are in send "+x.ID()+", which sara began while this one was being checked") ||
		len(r.Details) != 1 || !strings.Contains(r.Details[0], "by sara") {
		t.Fatalf("second operator's send: %#v", err)
	}
	if !strings.Contains(log.String(), "send refused: another send has these pairs") || !strings.Contains(log.String(), "operator=reza") {
		t.Errorf("the server's log:\n%s", log.String())
	}
	for range x.Events() {
	}
	if _, err := x.Finish(); err != nil {
		t.Fatal(err)
	}
	if n := len(v.sb.Sent()); n != 3 {
		t.Fatalf("the sandbox took %d messages, want 3", n)
	}
	// checked again, the repeat is the usual question, naming the operator
	q := prepare(t, b, pairs(3), false)
	if r := q.Refusal; r == nil || r.Rule != RuleRepeat || !strings.Contains(strings.Join(r.Details, "\n"), "accepted by send "+x.ID()+" by sara at") {
		t.Fatalf("the repeat question: %#v", q.Refusal)
	}
	// answered yes (AllowRepeats), it goes: the override is the operator's own
	y, err := q.AllowRepeats().Start(ctx, SendOptions{})
	if err != nil {
		t.Fatalf("after the question: %v", err)
	}
	for range y.Events() {
	}
	_, _ = y.Finish()
	st, err := config.ReadJournal(t.Context(), paths, y.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Plan.RepeatOf) != 1 || st.Plan.RepeatOf[0] != x.ID() || st.Plan.Operator.Name != "reza" {
		t.Errorf("the override is not recorded: repeat_of %v by %+v", st.Plan.RepeatOf, st.Plan.Operator)
	}
}

// TestAuditNotTakenIsSaid: an audit record the ledger does not take (a
// full disk, a read-only database) is told to the face (Session.Warn) with
// what was done, never dropped; the flow's own outcome stands (issue 41
// §6: the audit appends' errors were dropped).
func TestAuditNotTakenIsSaid(t *testing.T) {
	v := newService(t, sandbox.Options{Seed: true})
	paths := tempPaths(t)
	s := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
	var warned []error
	s.Warn = func(err error) { warned = append(warned, err) }
	ctx := context.Background()
	if _, err := s.TrackGroup(ctx, "4", "first"); err != nil || len(warned) != 0 {
		t.Fatalf("track: %v, warned %v", err, warned)
	}
	pl, err := config.ReadLedgerPlace(paths)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", pl.Location)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TRIGGER full_disk BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'database or disk is full (test)'); END`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TrackGroup(ctx, "4", "again"); err != nil {
		t.Fatalf("the track itself: %v", err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0].Error(), "track_group was done, but the audit trail did not take its record") ||
		!strings.Contains(warned[0].Error(), "database or disk is full (test)") {
		t.Errorf("warned %v", warned)
	}
}
