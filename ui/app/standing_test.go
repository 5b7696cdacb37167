package app

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// TestAllowReadsTheFileNow: an operator's every action is decided by the
// operators file as it is then: a role raised or lowered counts at once,
// a removed operator (or a new key under their name) and a file that
// cannot be trusted are refused as RuleOperator; Current and May follow the
// last read; a session with no operator is never asked.
func TestAllowReadsTheFileNow(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := gossh.NewSignerFromKey(priv)
	key := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(signer.PublicKey())))
	_, priv2, _ := ed25519.GenerateKey(rand.Reader)
	other, _ := gossh.NewSignerFromKey(priv2)
	otherKey := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(other.PublicKey())))

	var list []config.OperatorEntry
	var fileErr error
	sara := config.OperatorEntry{Name: "sara", Key: key, Role: model.RoleSender}
	s := (&Engine{Operators: func() ([]config.OperatorEntry, error) { return list, fileErr }}).Session(ptr(sara.Operator()))
	for _, tc := range []struct {
		name    string
		entries []config.OperatorEntry
		err     error
		action  Action
		rule    Rule // "" allowed
		role    model.Role
	}{
		{"a sender sends", []config.OperatorEntry{sara}, nil, ActionSend, "", model.RoleSender},
		{"made a viewer", []config.OperatorEntry{withRole(sara, model.RoleViewer)}, nil, ActionSend, RuleRole, model.RoleViewer},
		{"made an admin", []config.OperatorEntry{withRole(sara, model.RoleAdmin)}, nil, ActionDeleteContact, "", model.RoleAdmin},
		{"removed", nil, nil, ActionSend, RuleOperator, model.RoleAdmin},
		{"her name with another key", []config.OperatorEntry{{Name: "sara", Key: otherKey, Role: model.RoleAdmin}}, nil, ActionSend, RuleOperator, model.RoleAdmin},
		{"the file cannot be trusted", []config.OperatorEntry{sara}, errors.New("operators file: /x is writable by group or others"), ActionSend, RuleOperator, model.RoleAdmin},
		{"back as a sender", []config.OperatorEntry{sara}, nil, ActionImport, "", model.RoleSender},
	} {
		list, fileErr = tc.entries, tc.err
		err := s.Allow(tc.action)
		var r *Refusal
		switch {
		case tc.rule == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.rule != "" && (!errors.As(err, &r) || r.Rule != tc.rule || r.Action != tc.action || r.Operator != "sara"):
			t.Errorf("%s: %#v, want a %s refusal of %s", tc.name, err, tc.rule, tc.action)
		}
		if got := s.Current().Role; got != tc.role {
			t.Errorf("%s: the status bar's role %s, want %s", tc.name, got, tc.role)
		}
		if s.May(tc.action) != (tc.rule == "") {
			t.Errorf("%s: May(%s) = %v", tc.name, tc.action, s.May(tc.action))
		}
	}
	local := (&Engine{Operators: func() ([]config.OperatorEntry, error) { t.Fatal("read for a local session"); return nil, nil }}).Session(nil)
	if err := local.Allow(ActionDeleteContact); err != nil || local.Current() != nil || !local.May(ActionDeleteContact) {
		t.Errorf("this machine's own terminal: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

func withRole(e config.OperatorEntry, r model.Role) config.OperatorEntry {
	e.Role = r
	return e
}
