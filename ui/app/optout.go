package app

// The opt-out list (issue 29): numbers no send of any profile, key or
// operator on the ledger may go to, for every line or for one. The ledger
// keeps one list (config/ledger); changed here, with the operator recorded
// in the list and in the audit trail.

import (
	"context"
	"fmt"
	"strings"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// ActionOptOut is adding to or removing from the opt-out list.
const ActionOptOut Action = "changing the opt-out list"

// accountID is the session's service account (model.AccountID), "" when
// none is known (no key, offline without one).
func (s *Session) accountID() string {
	if s.Client != nil {
		return s.Client.AccountID()
	}
	return s.Account
}

// repeatScope is whose sends the repeat guard looks at: the account's,
// whatever profile or operator made them (older journals, which do not
// name it, by the profile or the service's host).
func (s *Session) repeatScope() config.RepeatScope {
	return config.RepeatScope{Account: s.accountID(), Profile: s.Profile.Name, Host: model.ServiceHost(s.Profile.BaseURL)}
}

// account is the session's service account: the opt-out list's key.
func (s *Session) account() (string, error) {
	if s.Client == nil && s.Account != "" {
		return s.Account, nil
	}
	if s.Client == nil {
		return "", ErrNotSignedIn
	}
	if id := s.Client.AccountID(); id != "" {
		return id, nil
	}
	return "", fmt.Errorf("no service account: the opt-out list needs the base URL and the key (smsdesk login)")
}

// OptOuts reads the opt-out list, in the order entries were added.
func (s *Session) OptOuts(ctx context.Context) ([]model.OptOut, error) {
	acct, err := s.account()
	if err != nil {
		return nil, err
	}
	return config.LoadOptOuts(ctx, s.Paths, acct)
}

// LookupOptOuts is the opt-out list as far as it concerns numbers (in any
// spelling): their entries, for every line and for one, read by number
// from the ledger, never the whole list, which may hold millions. A face
// marks the contacts it shows with it, and counts a plan as its
// confirmation will (MarkOptedOut). Without a key (ErrNotSignedIn) no list
// is read, as a plan made then marks no one.
func (s *Session) LookupOptOuts(ctx context.Context, numbers []string) (*model.OptOutList, error) {
	if _, err := s.account(); err != nil {
		return nil, err
	}
	return config.LookupOptOuts(ctx, s.Paths, numbers)
}

// OptOutList is the opt-out list, indexed for the send rules.
func (s *Session) OptOutList(ctx context.Context) (*model.OptOutList, error) {
	list, err := s.OptOuts(ctx)
	if err != nil {
		return nil, notSent("reading the opt-out list", err)
	}
	return model.NewOptOutList(list), nil
}

// OptOutNumbers normalises numbers given for the opt-out list (any
// spelling: +98…, 0098…, 9…, Persian or Arabic digits); one that is not a
// number refuses them all, naming each by its place (what, e.g.
// "argument").
func OptOutNumbers(numbers []string, what string) ([]string, error) {
	out := make([]string, 0, len(numbers))
	var bad []string
	for i, n := range numbers {
		k, err := model.OptOutKey(n)
		if err != nil {
			reason := err.Error()
			if me, ok := err.(*model.MobileError); ok {
				reason = me.Reason
			}
			bad = append(bad, fmt.Sprintf("%s %d (%s): %s", what, i+1, model.SanitizeLine(n), reason))
			continue
		}
		out = append(out, k)
	}
	if len(bad) > 0 {
		return nil, &Refusal{Rule: RuleRows, Reason: fmt.Sprintf("%d of %d numbers are not numbers; the opt-out list was not changed", len(bad), len(numbers)), Details: bad}
	}
	if len(out) == 0 {
		return nil, &Refusal{Rule: RuleRows, Reason: "no numbers given; the opt-out list was not changed"}
	}
	return out, nil
}

// AddOptOuts adds numbers (OptOutKeys) to the opt-out list, for
// sender only or, with sender "", for every line (sender role). Each added
// number is recorded with the operator in the audit trail.
func (s *Session) AddOptOuts(ctx context.Context, mobiles []string, sender, note string) (config.OptOutChange, error) {
	if err := s.Allow(ActionOptOut); err != nil {
		return config.OptOutChange{}, err
	}
	acct, err := s.account()
	if err != nil {
		return config.OptOutChange{}, err
	}
	sender, note = strings.TrimSpace(sender), model.SanitizeLine(strings.TrimSpace(note))
	now := s.now().UTC()
	var op *model.Operator
	if s.Operator != nil {
		o := *s.Operator
		op = &o
	}
	add := make([]model.OptOut, len(mobiles))
	for i, m := range mobiles {
		add[i] = model.OptOut{Mobile: m, Sender: sender, Note: note, Added: now, Operator: op}
	}
	ch, err := config.AddOptOuts(ctx, s.Paths, acct, add)
	for _, o := range ch.Changed {
		s.auditOptOut(ctx, "optout_add", o, err)
	}
	return ch, err
}

// RemoveOptOuts removes numbers (OptOutKeys) from the opt-out
// list: their opt-out for sender, or every one of theirs when sender is ""
// (sender role). Each is recorded with the operator in the audit trail:
// this is the only way to send to an opted-out number again.
func (s *Session) RemoveOptOuts(ctx context.Context, mobiles []string, sender string) (config.OptOutChange, error) {
	if err := s.Allow(ActionOptOut); err != nil {
		return config.OptOutChange{}, err
	}
	acct, err := s.account()
	if err != nil {
		return config.OptOutChange{}, err
	}
	ch, err := config.RemoveOptOuts(ctx, s.Paths, acct, mobiles, strings.TrimSpace(sender))
	for _, o := range ch.Changed {
		s.auditOptOut(ctx, "optout_remove", o, err)
	}
	return ch, err
}

// auditOptOut records a change of the opt-out list, at a local terminal too:
// who took a number off the list is what an operator is asked first.
func (s *Session) auditOptOut(ctx context.Context, action string, o model.OptOut, err error) {
	s.audit(ctx, config.AuditRecord{Action: action, Mobile: o.Mobile, Sender: o.Sender, Note: o.Note}, err)
}

// OptOutFile is a file of numbers for the opt-out list, read once and
// checked before anything is written (a million rows are never held at
// once: their numbers are spooled, config.OptOutSpool).
type OptOutFile struct {
	// Name is the file's name for people.
	Name string
	// Read reads the file to its end, giving each row (a mobile or
	// recipient column, or the first) to row and stopping at an error
	// row returns; a file that does not read is its own error.
	Read func(row func(model.ContactRow) error) error
	// Digest is the file's digest once read ("sha256:…"; nil or "": not
	// known), for the audit trail.
	Digest func() string
}

// ImportOptOuts adds the numbers of a file's rows to the opt-out list,
// after the checks a contacts import makes: a row that is not a number, or
// a number twice, refuses the file (naming each by its line) unless
// skipInvalid, and nothing is added. The whole file is read and checked
// first, its numbers spooled (config.OptOutSpool); then they go in one
// short transaction with one audit record for the whole file (its name,
// digest and counts), not one a number. No transaction is open while the
// file is read: an input that stalls (a pipe) holds nothing of the
// ledger, and every send goes on meanwhile. It returns the invalid rows
// (skipped, or the refusal's).
func (s *Session) ImportOptOuts(ctx context.Context, f OptOutFile, skipInvalid bool, sender, note string) (config.OptOutImport, []model.ImportRow, error) {
	if err := s.Allow(ActionOptOut); err != nil {
		return config.OptOutImport{}, nil, err
	}
	if _, err := s.account(); err != nil {
		return config.OptOutImport{}, nil, err
	}
	sender, note = strings.TrimSpace(sender), model.SanitizeLine(strings.TrimSpace(note))
	spool := config.NewOptOutSpool(s.Paths)
	defer func() {
		if cerr := spool.Close(); cerr != nil { // its file, when it had one, is left in the state directory
			s.warn(fmt.Errorf("removing the import's spool: %w", cerr))
		}
	}()
	read, invalid, err := s.readOptOutFile(f, spool)
	if err == nil {
		err = s.refuseImport(invalid, read, f.Name, skipInvalid)
	}
	if err != nil {
		return config.OptOutImport{}, invalid, err
	}
	now := s.now().UTC()
	var op *model.Operator
	if s.Operator != nil {
		o := *s.Operator
		op = &o
	}
	audit := func(res config.OptOutImport) config.AuditRecord {
		digest := ""
		if f.Digest != nil {
			digest = f.Digest()
		}
		return config.AuditRecord{Time: now, Profile: s.Profile.Name, Operator: s.Current(), Action: "optout_import",
			File: model.SanitizeLine(f.Name), Digest: digest, Sender: sender, Note: note,
			Counts: map[string]int{"read": read, "added": res.Added, "already": res.Already, "invalid": len(invalid)}}
	}
	entry := model.OptOut{Sender: sender, Note: note, Added: now, Operator: op}
	res, err := config.ImportOptOuts(ctx, s.Paths, spool, entry, audit)
	return res, invalid, err
}

// readOptOutFile reads f whole, checking each row as a contacts import
// does: the valid rows' numbers go to spool, the others are returned.
func (s *Session) readOptOutFile(f OptOutFile, spool *config.OptOutSpool) (read int, invalid []model.ImportRow, err error) {
	check := model.NewImportCheck(s.importOptions(), nil)
	err = f.Read(func(r model.ContactRow) error {
		read++
		row := check.Row(r)
		k, err := model.OptOutKey(row.Mobile)
		if row.Status != model.ImportValid || err != nil {
			invalid = append(invalid, row)
			return nil
		}
		return spool.Add(k)
	})
	return read, invalid, err
}

// CountOptOuts counts the numbers on the opt-out list of the ledger of
// paths (smsdesk doctor's line), without reading them: a damaged list is
// its error, never 0.
func CountOptOuts(ctx context.Context, paths config.Paths) (int, error) {
	return config.CountOptOuts(ctx, paths)
}
