package legacy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
)

// An upgrade moves a state directory's file-store state into the ledger:
// everything in one transaction, its counts checked and every send read
// back, then the files moved aside to <state>/before-ledger/, and one
// report for the faces to print. Until it has been made, no send may go:
// an import that fails leaves the files as they were (and a ledger it
// made is removed), and its error says what to fix.
//
// It holds its own lock (two smsdesk started at once upgrade once) and
// the file store's while it reads and moves (the send-start lock, every
// journal's, every account file's), so that an older smsdesk still
// running (a serve, a cron job) cannot start or add to a send meanwhile;
// one that is sending now makes the upgrade refuse. Each account's opt-out
// list and once-only ids are replaced, in one rename each, by a note of a
// version the file store refuses, and sends/ by a file saying where it
// went: an older smsdesk fails there, and never reads an opt-out list
// that is gone as empty.
//
// The import is marked in the ledger with the digest of what it read: a
// process that died after the import committed and before the files moved
// finds the mark the next time and only moves them.

// Report is what an upgrade did, for the faces to say once.
type Report struct {
	Ledger   string // where the ledger is (a URL without its password)
	LedgerID string
	Created  bool // the upgrade made the ledger
	// What was imported: sends and their records, opt-outs (OptOutsRead
	// in the files, merged across accounts; OptOutsKept were on the
	// ledger's list already), once-only ids, audit records.
	Sends, Records           int
	OptOuts, OptOutsRead     int
	OptOutsKept              int
	OnceIDs, OnceKept, Audit int
	// MovedTo is where the old files are now.
	MovedTo string
	// Finished: the import had been made by an earlier run that stopped
	// before the files moved; this run moved them.
	Finished bool
	Notes    []string
}

// String is the report as the faces print it on stderr.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "smsdesk moved its memory into the ledger %s: %s, %s, %s, %s; the old files are in %s",
		r.Ledger, model.Counted(r.Sends, "send"), model.Counted(r.OptOuts, "opt-out"),
		model.Counted(r.OnceIDs, "once-only id"), model.Counted(r.Audit, "audit record"), r.MovedTo)
	if r.OptOutsRead > r.OptOuts+r.OptOutsKept {
		fmt.Fprintf(&b, "\n  merged: %s found on more than one account's list, each kept once (the earliest)",
			model.Counted(r.OptOutsRead-r.OptOuts-r.OptOutsKept, "opt-out"))
	}
	if r.OptOutsKept > 0 || r.OnceKept > 0 {
		fmt.Fprintf(&b, "\n  already in the ledger, kept as it held them: %s, %s",
			model.Counted(r.OptOutsKept, "opt-out"), model.Counted(r.OnceKept, "once-only id"))
	}
	if r.Finished {
		b.WriteString("\n  (the import was made by an earlier run, stopped before the files moved)")
	}
	for _, n := range r.Notes {
		b.WriteString("\n  note: " + n)
	}
	return model.Sanitize(b.String())
}

// UpgradeError is an upgrade that did not happen: nothing was imported (or
// the import stands but the files could not all be moved: Imported), and
// no send may go until it has.
type UpgradeError struct {
	StateDir string
	Imported bool
	Err      error
}

func (e *UpgradeError) Error() string {
	if e.Imported {
		return fmt.Sprintf("smsdesk imported the file store of %s into the ledger, but could not move the old files aside: %v; nothing was sent (start smsdesk again once that is mended: it finishes the move)",
			model.SanitizeLine(e.StateDir), e.Err)
	}
	return fmt.Sprintf("smsdesk could not move its memory from %s into the ledger: %v; the files are as they were and nothing was sent (start smsdesk again once that is mended)",
		model.SanitizeLine(e.StateDir), e.Err)
}

func (e *UpgradeError) Unwrap() error { return e.Err }

// markPrefix starts the ledger's meta key that marks an import made.
const markPrefix = "file_store_import:"

// Upgrade imports the file-store state of stateDir into the ledger at
// location (a SQLite file's path or a postgres:// URL), making the ledger
// when there is none, and moves the old files aside. A directory with no
// file-store state is nothing to do: nil, nil. An error is an
// *UpgradeError (or the ctx's).
func Upgrade(ctx context.Context, stateDir, location string) (*Report, error) {
	found, err := Found(stateDir)
	if err != nil || !found {
		return nil, err
	}
	if abs, err := filepath.Abs(stateDir); err == nil {
		stateDir = abs // the report names where the files went
	}
	fail := func(err error) (*Report, error) { return nil, &UpgradeError{StateDir: stateDir, Err: err} }
	locks, err := lockFileStore(stateDir)
	if err != nil {
		if again, ferr := Found(stateDir); ferr == nil && !again {
			return nil, nil // another smsdesk upgraded it while this one waited
		}
		return fail(err)
	}
	defer locks.release()
	snap, err := Read(stateDir)
	if err != nil {
		return fail(err)
	}
	if snap.Empty() {
		return nil, nil // as above, the other finished first
	}
	l, created, err := openOrCreate(ctx, location)
	if err != nil {
		return fail(err)
	}
	root := asideDir(stateDir)
	rep, err := importOnce(ctx, l, snap, root)
	if err != nil {
		if created {
			if derr := l.Discard(context.WithoutCancel(ctx)); derr != nil {
				err = fmt.Errorf("%w (and the new ledger could not be removed: %v)", err, derr)
			}
		} else {
			_ = l.Close() // the error above is the one to report
		}
		return fail(err)
	}
	rep.Ledger, rep.LedgerID, rep.Created, rep.Notes = l.Where(), l.ID(), created, snap.Notes
	if err := l.Close(); err != nil {
		return nil, &UpgradeError{StateDir: stateDir, Imported: true, Err: err}
	}
	if err := moveAside(snap, locks, root); err != nil {
		return nil, &UpgradeError{StateDir: stateDir, Imported: true, Err: err}
	}
	return rep, nil
}

// openOrCreate opens the ledger at location, or makes it when there is
// none (created).
func openOrCreate(ctx context.Context, location string) (*ledger.Ledger, bool, error) {
	l, err := ledger.Open(ctx, location)
	if errors.Is(err, ledger.ErrMissing) {
		l, err = ledger.Create(ctx, location)
		return l, err == nil, err
	}
	return l, false, err
}

// importOnce imports snap into l unless l is marked with snap's digest (an
// earlier run imported it: Finished, the counts as that run made them).
func importOnce(ctx context.Context, l *ledger.Ledger, snap *Snapshot, root string) (*Report, error) {
	mark := markPrefix + snap.Digest
	if v, ok, err := l.Meta(ctx, mark); err != nil || ok {
		if err != nil {
			return nil, err
		}
		var rep Report
		if err := json.Unmarshal([]byte(v), &rep); err != nil {
			return nil, fmt.Errorf("the ledger's mark of an earlier import does not read: %w", err)
		}
		rep.Finished, rep.MovedTo = true, root
		return &rep, nil
	}
	rep := &Report{OptOutsRead: snap.OptOutsRead, MovedTo: root}
	err := l.Load(ctx, func(b *ledger.Bulk) error {
		if err := load(b, snap, rep); err != nil {
			return err
		}
		v, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		return b.SetMeta(mark, string(v))
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// load puts snap into the ledger in b's transaction, then checks that the
// ledger holds what was read: its counts, and every send read back as the
// journal read.
func load(b *ledger.Bulk, snap *Snapshot, rep *Report) error {
	rep.Sends, rep.Records = 0, 0 // counted afresh if the ledger tries the load again
	before, err := b.Counts()
	if err != nil {
		return err
	}
	for _, s := range snap.Sends {
		if err := b.PutSend(s.Records); err != nil {
			if errors.Is(err, ledger.ErrSendExists) {
				return fmt.Errorf("%s: send %s is in the ledger already (was this state directory's history imported from another copy of it?): %w", s.Path, s.ID, err)
			}
			return fmt.Errorf("%s: %w", s.Path, err)
		}
		rep.Sends++
		rep.Records += len(s.Records)
	}
	if rep.OptOuts, err = b.PutOptOuts(snap.OptOuts); err != nil {
		return err
	}
	once := make([]ledger.OnceSend, len(snap.Once))
	for i, o := range snap.Once {
		once[i] = ledger.OnceSend{ID: o.ID, SendID: o.SendID, Pairs: o.Pairs, Count: o.Count, Source: o.Source, Time: o.Time, Profile: o.Profile, Operator: o.Operator}
	}
	if rep.OnceIDs, err = b.PutOnce(once); err != nil {
		return err
	}
	audit := make([]ledger.AuditEntry, len(snap.Audit))
	for i, r := range snap.Audit {
		audit[i] = ledger.AuditEntry{Time: r.Time, Action: r.Action, Body: r.Raw}
	}
	rep.Audit = len(audit)
	rep.OptOutsKept, rep.OnceKept = len(snap.OptOuts)-rep.OptOuts, len(snap.Once)-rep.OnceIDs
	upgrade, err := upgradeRecord(snap, rep)
	if err != nil {
		return err
	}
	if err := b.PutAudit(append(audit, upgrade)); err != nil {
		return err
	}
	return check(b, snap, before, rep)
}

// upgradeAction is the audit record of an upgrade: what was imported from
// where, and where the old files went (the report, kept where a script
// that reads only JSON, or a console, may look for it later).
const upgradeAction = "upgrade_to_ledger"

func upgradeRecord(snap *Snapshot, rep *Report) (ledger.AuditEntry, error) {
	r := AuditRecord{Time: time.Now(), Action: upgradeAction,
		Note: fmt.Sprintf("imported the file store of %s; the old files are in %s", snap.Dir, rep.MovedTo),
		Counts: map[string]int{"sends": rep.Sends, "records": rep.Records, "optouts": rep.OptOuts, "optouts_read": snap.OptOutsRead,
			"optouts_kept": rep.OptOutsKept, "once_ids": rep.OnceIDs, "audit": rep.Audit}}
	body, err := json.Marshal(r)
	return ledger.AuditEntry{Time: r.Time, Action: r.Action, Body: body}, err
}

// check compares the ledger's counts after the load with those before and
// what was read, and reads every send back.
func check(b *ledger.Bulk, snap *Snapshot, before ledger.Counts, rep *Report) error {
	after, err := b.Counts()
	if err != nil {
		return err
	}
	want := ledger.Counts{
		Sends: before.Sends + len(snap.Sends), Records: before.Records + rep.Records,
		OptOuts: before.OptOuts + rep.OptOuts, OnceIDs: before.OnceIDs + rep.OnceIDs, Audit: before.Audit + len(snap.Audit) + 1,
	}
	if before == (ledger.Counts{}) && (rep.OptOutsKept != 0 || rep.OnceKept != 0) {
		return fmt.Errorf("an empty ledger kept %d of the opt-outs and %d of the once-only ids out: nothing was imported", rep.OptOutsKept, rep.OnceKept)
	}
	if after != want {
		return fmt.Errorf("after the import the ledger holds %+v, and %+v was read: nothing was imported", after, want)
	}
	for _, s := range snap.Sends {
		st, err := b.ReadSend(s.ID)
		if err != nil {
			return fmt.Errorf("%s: reading it back from the ledger: %w", s.Path, err)
		}
		if problem := sameState(s.State, st); problem != "" {
			return fmt.Errorf("%s: the ledger reads it otherwise than its journal: %s; nothing was imported", s.Path, problem)
		}
	}
	return nil
}

// sameState says how the ledger's replay of a send differs from the
// journal's ("" when it does not).
func sameState(journal, got *model.JournalState) string {
	switch {
	case journal.Plan.ID != got.Plan.ID:
		return fmt.Sprintf("its plan is of send %s", got.Plan.ID)
	case len(journal.Items) != len(got.Items):
		return fmt.Sprintf("%d items, not %d", len(got.Items), len(journal.Items))
	case journal.Ended != got.Ended || journal.Runs != got.Runs || (journal.Cancel == nil) != (got.Cancel == nil) ||
		journal.Waiting() != got.Waiting() || journal.Held() != got.Held():
		return "its runs, end, cancel or schedule"
	}
	for i, it := range journal.Items {
		if o := got.Items[i]; o.Index != it.Index || o.State != it.State || o.Recipient != it.Recipient || o.MessageID != it.MessageID || o.Delivery != it.Delivery {
			return fmt.Sprintf("item %d is %s, not %s", it.Index, o.State, it.State)
		}
	}
	return ""
}
