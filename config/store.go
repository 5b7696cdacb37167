package config

import (
	"context"
	"errors"
	"path/filepath"
	"sync"

	"github.com/smsdesk/smsdesk/config/ledger"
)

// The ledger (package ledger) holds what decides what may be sent: the
// sends, the opt-out list, the once-only ids, the repeat guard's digests
// and the audit trail. Paths carries it: opened on first use, once per
// Paths made by PathsIn, DefaultPaths or PathsFromEnv (copies share it),
// from SMSDESK_LEDGER, else config.toml's top-level `ledger`, else
// <state dir>/smsdesk.db. A default SQLite ledger that is not there yet is
// made, unless config.toml records one (it has gone: ledgeropen.go);
// anything else that does not open is an error, and no send goes.

// EnvLedger overrides where the ledger is (a postgres:// URL or a file).
const EnvLedger = "SMSDESK_LEDGER"

// ledgerHandle is a Paths' ledger, opened once.
type ledgerHandle struct {
	mu  sync.Mutex
	env string // SMSDESK_LEDGER as the Paths were made with
	l   *ledger.Ledger
}

func newLedgerHandle(env string) *ledgerHandle { return &ledgerHandle{env: env} }

// LedgerLocation is where the ledger is: SMSDESK_LEDGER (as the paths were
// made with), else config.toml's `ledger`, else StateDir/smsdesk.db.
func (p Paths) LedgerLocation() (string, error) {
	if p.ledger != nil && p.ledger.env != "" {
		return p.ledger.env, nil
	}
	if p.ConfigFile != "" {
		c, err := Load(p)
		if err != nil {
			return "", err
		}
		if c.Ledger != "" {
			return c.Ledger, nil
		}
	}
	if p.StateDir == "" {
		return "", errors.New("no state directory for the ledger: set " + EnvStateDir + " or " + EnvLedger)
	}
	return filepath.Join(p.StateDir, ledger.FileName), nil
}

// Ledger is the paths' ledger, opened on first use (and kept open for the
// process: CloseLedger closes it). The state directory's own SQLite ledger
// is made when there is none yet and none is recorded; a ledger named by
// SMSDESK_LEDGER or the config is only opened; one that has gone, or is
// another than config.toml records, is refused (openLedger).
func (p Paths) Ledger() (*ledger.Ledger, error) {
	h := p.ledger
	if h == nil {
		return nil, errors.New("no ledger: these paths were not made by config.PathsIn, DefaultPaths or PathsFromEnv")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.l != nil {
		return h.l, nil
	}
	// A ledger that has gone, or another than config.toml records, is
	// refused (ledgeropen.go). The upgrade importer (config/legacy) takes
	// the file store's state there.
	l, err := openLedger(context.Background(), p)
	if err != nil {
		return nil, err
	}
	h.l = l
	return l, nil
}

// legacyState lists the file store's files in stateDir (journals, opt-out
// lists, once-only ids, the audit file) that a new ledger would leave
// behind.
func legacyState(stateDir string) []string {
	var out []string
	for _, pattern := range []string{"sends/*.jsonl", "accounts/*/optouts.json", "accounts/*/once.json", AuditFileName} {
		m, _ := filepath.Glob(filepath.Join(stateDir, pattern))
		out = append(out, m...)
	}
	return out
}

// CloseLedger closes the paths' ledger if it was opened; the next use
// opens it again.
func (p Paths) CloseLedger() error {
	h := p.ledger
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.l == nil {
		return nil
	}
	err := h.l.Close()
	h.l = nil
	return err
}
