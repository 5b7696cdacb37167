package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/config/legacy"
	"github.com/smsdesk/smsdesk/config/legacy/legacytest"
)

// The first use of the ledger over an older smsdesk's state directory
// imports it, and says so once, to whoever is told (OnUpgrade), set before
// or after; its opt-out list is the ledger's from then on.
func TestLedgerUpgradesTheFileStore(t *testing.T) {
	for _, setBefore := range []bool{true, false} {
		p := PathsIn(t.TempDir(), legacytest.Fixture(t))
		var said []string
		say := func(report string) { said = append(said, report) }
		if setBefore {
			p.OnUpgrade(say)
		}
		l, err := p.Ledger(t.Context())
		if err != nil {
			t.Fatalf("Ledger: %v", err)
		}
		if !setBefore {
			p.OnUpgrade(say)
		}
		if n, err := l.CountOptOuts(context.Background()); n != 3 || err != nil {
			t.Errorf("%d opt-outs, %v; want the 3 of the files", n, err)
		}
		if err := p.CloseLedger(); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Ledger(t.Context()); err != nil {
			t.Fatal(err)
		}
		p.CloseLedger()
		if len(said) != 1 || !strings.HasPrefix(said[0], "smsdesk moved its memory into the ledger") {
			t.Errorf("OnUpgrade set before: %v; said %q, want one report", setBefore, said)
		}
	}
}

// An upgrade that fails is the error of every use of the ledger: no send
// goes without what the files held.
func TestLedgerUpgradeThatFails(t *testing.T) {
	p := PathsIn(t.TempDir(), legacytest.Fixture(t))
	list := filepath.Join(p.StateDir, "accounts", "e58cc07961ac44b88b4df371", "optouts.json")
	if err := os.WriteFile(list, []byte(`{"version":1,"optouts":null}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, err := p.Ledger(t.Context())
		var ue *legacy.UpgradeError
		if !errors.As(err, &ue) {
			t.Fatalf("Ledger = %v, want an *legacy.UpgradeError", err)
		}
	}
	if _, err := LockSendStart(t.Context(), p); err == nil {
		t.Error("LockSendStart went on")
	}
}
