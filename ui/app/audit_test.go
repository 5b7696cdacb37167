package app

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// TestAudit: the trail newest first, in the profile's zone, with who and
// what in words; filtered by operator and time and cut at the limit; read
// by an admin or the host's own terminal, refused to a sender or viewer.
func TestAudit(t *testing.T) {
	paths := tempPaths(t)
	t0 := time.Date(2026, 11, 28, 22, 40, 0, 0, time.UTC)
	sara := &model.Operator{Name: "sara", Fingerprint: "SHA256:s", Role: model.RoleSender}
	for i, r := range []config.AuditRecord{
		{Action: "optout_add", Operator: sara, Mobile: "09120000001", Note: "asked by phone"},
		{Action: "import", Operator: &model.Operator{Name: "ali", Role: model.RoleSender}, GroupID: "g1", Counts: map[string]int{"added": 3, "not_attempted": 1}},
		{Action: "optout_remove", Mobile: "09120000001", Sender: "3000"}, // the host's terminal
		{Action: "optout_add", Operator: sara, Mobile: "09120000002", Error: "the ledger said no\x1b[2J"},
	} {
		r.Time = t0.Add(time.Duration(i) * time.Minute)
		if err := config.AppendAudit(t.Context(), paths, r); err != nil {
			t.Fatal(err)
		}
	}
	zone, _ := model.LoadTimezone("Asia/Tehran")
	host := &Session{Paths: paths, Profile: Profile{Name: "p", Location: zone}}
	ctx := context.Background()

	all, err := host.Audit(ctx, AuditQuery{})
	if err != nil || len(all) != 4 {
		t.Fatalf("every record: %+v %v", all, err)
	}
	if all[0].Record.Mobile != "09120000002" || all[3].Record.Mobile != "09120000001" || all[0].Seq <= all[3].Seq {
		t.Errorf("not newest first: %+v", all)
	}
	if got := all[0].Time.Format("15:04 MST"); got != "02:13 +0330" {
		t.Errorf("time %s, want the profile's zone (02:13 +0330)", got)
	}
	if all[0].What != "opted a number out" || all[1].What != "took a number off the opt-out list" || all[1].Operator != nil {
		t.Errorf("words: %q %q %+v", all[0].What, all[1].What, all[1].Operator)
	}
	if d := all[0].Details; !strings.Contains(d, "09120000002") || !strings.Contains(d, "every line") || strings.Contains(d, "\x1b") ||
		!strings.Contains(d, "failed: the ledger said no") {
		t.Errorf("details %q", d)
	}
	if d := all[2].Details; !strings.Contains(d, "group g1") || !strings.Contains(d, "3 added, 1 not attempted") {
		t.Errorf("import details %q", d)
	}

	for _, tt := range []struct {
		name string
		q    AuditQuery
		want []string // mobiles, or the group for the import
	}{
		{"sara's", AuditQuery{Operator: "sara"}, []string{"09120000002", "09120000001"}},
		{"nobody's", AuditQuery{Operator: "reza"}, nil},
		{"since minute 2", AuditQuery{Since: t0.Add(2 * time.Minute)}, []string{"09120000002", "09120000001"}},
		{"the newest", AuditQuery{Limit: 1}, []string{"09120000002"}},
		{"sara's oldest of two", AuditQuery{Operator: "sara", Since: t0.Add(time.Minute), Limit: 5}, []string{"09120000002"}},
	} {
		got, err := host.Audit(ctx, tt.q)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var mobiles []string
		for _, e := range got {
			mobiles = append(mobiles, e.Record.Mobile)
		}
		if strings.Join(mobiles, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%s: %v, want %v", tt.name, mobiles, tt.want)
		}
	}

	if _, err := host.Audit(ctx, AuditQuery{Limit: -1}); err == nil {
		t.Error("a negative limit was taken")
	}
	if got, err := host.Audit(ctx, AuditQuery{All: true, Limit: 1}); err != nil || len(got) != 4 {
		t.Errorf("all: %d records, %v", len(got), err)
	}
	for _, role := range []model.Role{model.RoleViewer, model.RoleSender} {
		s := &Session{Paths: paths, Operator: &model.Operator{Name: "ali", Role: role}}
		_, err := s.Audit(ctx, AuditQuery{})
		var r *Refusal
		if !errors.As(err, &r) || r.Rule != RuleRole || r.Needs != model.RoleAdmin {
			t.Errorf("a %s read the trail: %v", role, err)
		}
	}
	admin := &Session{Paths: paths, Operator: &model.Operator{Name: "ali", Role: model.RoleAdmin}}
	if got, err := admin.Audit(ctx, AuditQuery{}); err != nil || len(got) != 4 {
		t.Errorf("an admin: %d records, %v", len(got), err)
	}
}
