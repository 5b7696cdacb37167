package config

import (
	"context"
	"errors"
	"path/filepath"
	"sync"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/legacy"
)

// The ledger (package ledger) holds what decides what may be sent: the
// sends, the opt-out list, the once-only ids, the repeat guard's digests
// and the audit trail. Paths carries it: opened on first use, once per
// Paths made by PathsIn, DefaultPaths or PathsFromEnv (copies share it),
// from SMSDESK_LEDGER, else config.toml's top-level `ledger`, else
// <state dir>/smsdesk.db. A default SQLite ledger that is not there yet is
// made, unless config.toml records one (it has gone: ledgeropen.go);
// anything else that does not open is an error, and no send goes.
//
// A state directory the file store wrote (an older smsdesk's journals,
// opt-out lists, once-only ids, audit file) is imported into the ledger
// when it is first opened (config/legacy.Upgrade), and the faces say so
// once (OnUpgrade); an import that fails is the error of every use, so
// that nothing is sent without what the files held.

// EnvLedger overrides where the ledger is (a postgres:// URL or a file).
const EnvLedger = "SMSDESK_LEDGER"

// ledgerHandle is a Paths' ledger, opened once.
type ledgerHandle struct {
	mu  sync.Mutex
	env string // SMSDESK_LEDGER as the Paths were made with
	l   *ledger.Ledger
	// say tells the face of an upgrade (OnUpgrade); told is an upgrade's
	// report kept until then.
	say  func(report string)
	told *legacy.Report
	// changes is the process's one watch of the ledger and the config
	// file, and its feeds (WatchChanges); base are the ledger's change
	// counters as that watch compares with (read as it opens while a
	// watch runs).
	changes changeHub
	base    *ledger.Counters
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
// another than config.toml records, is refused (openLedger). ctx bounds
// the opening (and an upgrade of the file store's state); the ledger,
// once open, is the process's, whatever context opened it.
func (p Paths) Ledger(ctx context.Context) (*ledger.Ledger, error) {
	h := p.ledger
	if h == nil {
		return nil, errors.New("no ledger: these paths were not made by config.PathsIn, DefaultPaths or PathsFromEnv")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.l != nil {
		return h.l, nil
	}
	loc, err := p.LedgerLocation()
	if err != nil {
		return nil, err
	}
	if p.StateDir != "" {
		// The file store's state, if any, is imported first
		// (config/legacy); then the ledger opens as any other, with
		// the rule that a ledger gone or another than config.toml
		// records is refused (ledgeropen.go).
		rep, err := legacy.Upgrade(ctx, p.StateDir, loc)
		if err != nil {
			return nil, err
		}
		h.tell(rep)
	}
	l, err := openLedger(ctx, p)
	if err != nil {
		return nil, err
	}
	h.l = l
	if h.changes.running.Load() {
		h.readBase() // before anyone reads anything of it: a watch tells what changes after
	}
	return l, nil
}

// OnUpgrade sets how the paths' user is told, once, that smsdesk moved a
// state directory of the file store into the ledger (the report: what was
// imported and where the old files are): the CLI writes it on stderr. An
// upgrade made before it was set is told when it is.
func (p Paths) OnUpgrade(say func(report string)) {
	h := p.ledger
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.say = say
	h.tell(nil)
}

// tell says rep, or the report kept, when there is someone to tell.
func (h *ledgerHandle) tell(rep *legacy.Report) {
	if rep != nil {
		h.told = rep
	}
	if h.told != nil && h.say != nil {
		h.say(h.told.String())
		h.told = nil
	}
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
	h.l, h.base = nil, nil
	return err
}
