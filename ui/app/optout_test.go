package app

import (
	"errors"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// TestOptOutListSharedByProfiles: two profiles on one account (the base URL
// spelled two ways, the same key) keep one list; a change is audited with
// the operator; a viewer may not change it; a number that is not one
// refuses the lot.
func TestOptOutListSharedByProfiles(t *testing.T) {
	v := newService(t, sandbox.Options{})
	paths := tempPaths(t)
	a := v.session(t, paths, &config.Profile{Name: "a", Sender: sandbox.DefaultSender})
	bURL := strings.TrimSuffix(v.baseURL, "/v1") // another accepted spelling
	b := (&service{sb: v.sb, baseURL: bURL}).session(t, paths, &config.Profile{Name: "b", Sender: sandbox.DefaultSender})
	if a.Client.AccountID() != b.Client.AccountID() {
		t.Fatalf("one account, two ids: %s %s", a.Client.AccountID(), b.Client.AccountID())
	}
	a.Operator = &model.Operator{Name: "sara", Role: model.RoleSender}

	mobiles, err := OptOutNumbers([]string{"+989121234567", "۰۹۳۵۱۲۳۴۵۶۷"}, "argument")
	if err != nil {
		t.Fatal(err)
	}
	if ch, err := a.AddOptOuts(t.Context(), mobiles, "", "asked by phone"); err != nil || len(ch.Changed) != 2 {
		t.Fatalf("add: %+v %v", ch, err)
	}
	list, err := b.OptOuts(t.Context())
	if err != nil || len(list) != 2 || list[0].Mobile != "09121234567" || list[0].Operator == nil || list[0].Operator.Name != "sara" {
		t.Fatalf("profile b sees %+v, %v", list, err)
	}
	if ch, err := b.RemoveOptOuts(t.Context(), []string{"09351234567"}, ""); err != nil || len(ch.Changed) != 1 {
		t.Fatalf("remove: %+v %v", ch, err)
	}
	audit, _ := config.AuditText(t.Context(), paths)
	for _, want := range []string{`"action":"optout_add"`, `"name":"sara"`, `"note":"asked by phone"`, `"action":"optout_remove","mobile":"09351234567"`} {
		if !strings.Contains(string(audit), want) {
			t.Errorf("audit lacks %s:\n%s", want, audit)
		}
	}

	b.Operator = &model.Operator{Name: "vida", Role: model.RoleViewer}
	var r *Refusal
	if _, err := b.AddOptOuts(t.Context(), []string{"09121111111"}, "", ""); !errors.As(err, &r) || r.Rule != RuleRole {
		t.Errorf("a viewer added: %v", err)
	}
	_, err = OptOutNumbers([]string{"09121111111", "12", "abc"}, "argument")
	if !errors.As(err, &r) || r.Rule != RuleRows || len(r.Details) != 2 || !strings.HasPrefix(r.Details[0], "argument 2 (12): too short") {
		t.Errorf("bad numbers: %#v", err)
	}
}

// TestImportOptOuts: the file's rows are checked as a contacts import's
// are, by line; with --skip-invalid the good ones go in.
func TestImportOptOuts(t *testing.T) {
	v := newService(t, sandbox.Options{})
	s := v.session(t, tempPaths(t), &config.Profile{Name: "a", Sender: sandbox.DefaultSender})
	rows := []model.ContactRow{{Line: 2, Mobile: "09121234567"}, {Line: 3, Mobile: "0912"}, {Line: 4, Mobile: "+989121234567"}}
	_, invalid, err := s.ImportOptOuts(t.Context(), optOutFile(rows, ""), false, "", "")
	var r *Refusal
	if !errors.As(err, &r) || len(invalid) != 2 || !strings.HasPrefix(r.Details[0], "optouts.csv line 3: ") || !strings.Contains(r.Details[1], "line 4: duplicate of line 2") {
		t.Fatalf("import: %v %+v", err, r)
	}
	if l, _ := s.OptOuts(t.Context()); len(l) != 0 {
		t.Fatalf("a refused file added %d", len(l))
	}
	res, _, err := s.ImportOptOuts(t.Context(), optOutFile(rows, "sha256:abc"), true, "3000505", "")
	if l, _ := s.OptOuts(t.Context()); err != nil || res.Added != 1 || len(l) != 1 || l[0].Sender != "3000505" {
		t.Fatalf("skip invalid: %+v %v, list %+v", res, err, l)
	}
	// One audit record for the file, not one a number.
	trail, err := config.ReadAudit(t.Context(), s.Paths)
	if err != nil || len(trail) != 1 || trail[0].Action != "optout_import" || trail[0].File != "optouts.csv" || trail[0].Digest != "sha256:abc" ||
		trail[0].Counts["added"] != 1 || trail[0].Counts["invalid"] != 2 || trail[0].Counts["read"] != 3 || trail[0].Sender != "3000505" {
		t.Errorf("audit trail: %+v %v", trail, err)
	}
}

// optOutFile is optouts.csv of rows, of digest.
func optOutFile(rows []model.ContactRow, digest string) OptOutFile {
	return OptOutFile{Name: "optouts.csv", Digest: func() string { return digest },
		Read: func(row func(model.ContactRow) error) error {
			for _, r := range rows {
				if err := row(r); err != nil {
					return err
				}
			}
			return nil
		}}
}
