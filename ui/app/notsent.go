package app

import (
	"errors"
	"fmt"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
)

// notSent is err, met while checking or starting a send before anything
// went, with what was being done and "; nothing was sent". A refusal of
// the ledger itself (it has gone, is damaged, cannot be opened, or is
// another than config.toml records) names the ledger, what was being read
// and that nothing was sent, and says how to go on after that: it is
// returned as it is, so that neither is said twice.
func notSent(what string, err error) error {
	switch {
	case ledgerRefusal(err):
		return err
	case what == "":
		return fmt.Errorf("%w; nothing was sent", err)
	}
	return fmt.Errorf("%s: %w; nothing was sent", what, err)
}

// ledgerRefusal reports whether err is the ledger's own refusal, which
// says "nothing was sent" itself.
func ledgerRefusal(err error) bool {
	return errors.Is(err, ledger.ErrDamaged) || errors.Is(err, ledger.ErrUnopenable) ||
		errors.Is(err, config.ErrLedgerGone) || errors.Is(err, config.ErrOtherLedger)
}
