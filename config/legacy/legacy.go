// Package legacy is the upgrade from smsdesk's file store to the ledger
// (issue 36). Read reads a state directory as the file store left it: the
// send journals, every account's opt-out list and once-only ids, and the
// audit file. Upgrade imports all of it into a ledger in one transaction
// and moves the files aside (upgrade.go says how). It uses model and
// config/ledger, never config: config opens the ledger through it.
//
// What the file store kept in the state directory, and what becomes of it:
//
//	sends/<id>.jsonl                 a send's journal (model.JournalRecord a line): read
//	sends/<id>.pairs                 the repeat guard's digest of a journal: a cache
//	                                 the file store rebuilt from the journal whenever
//	                                 it was missing or stale, so not read: Send.Pairs
//	                                 rebuilds it from the journal as that did
//	sends/.start.lock                the send-start lock: nothing to read
//	accounts/<account>/optouts.json  an account's opt-out list: read, and merged
//	accounts/<account>/once.json     an account's once-only ids: read, and merged
//	audit.jsonl                      the audit trail (one JSON object a line): read
//	*.lock, .<name>.tmp-*            locks and a crashed write's temp files
//	groups/, cache/, rate/, debug.log  known groups, the contacts cache, the request
//	                                 budget, the debug log: they stay files (not read)
//
// Nothing that does not read is skipped or read as empty: a damaged file is
// an *Error naming it and the line. The one exception is the file store's
// own: a journal's last line cut short (the process died while writing it)
// was never acted on, and replay leaves it out as the file store's did
// (Send.CutTail says so).
package legacy

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/smsdesk/smsdesk/model"
)

// Snapshot is everything a file-store state directory holds that the ledger
// keeps.
type Snapshot struct {
	Dir   string // the state directory read
	Sends []Send // by id (the ids begin with their time)
	// OptOuts are every account's opt-outs as one list (the ledger's list is
	// the account's, not a key's): one entry per number and line, the earliest
	// added kept, sorted by number and line. OptOutsRead counts the entries
	// the files held before they were merged.
	OptOuts     []model.OptOut
	OptOutsRead int
	// Once are every account's once-only ids, one per id (the earliest use
	// kept: any use refuses the id again), sorted by time. OnceRead counts
	// the entries the files held.
	Once     []OnceSend
	OnceRead int
	Audit    []AuditRecord // in the file's order
	// Files are the paths (relative to Dir) of the file store's files: what
	// was read, the digests and locks beside them, and anything else found
	// under sends/ and accounts/. An import moves these aside.
	Files []string
	// Notes say what was read otherwise than as it stands, for the report:
	// a journal's last line cut short, a journal that holds no plan.
	Notes []string
	// Digest is a SHA-256 of every file read, its name and its content:
	// the same files give the same digest (an import already made of them
	// is known by it).
	Digest string

	hash hash.Hash
}

// Empty reports whether the directory held no file-store state at all.
func (s *Snapshot) Empty() bool { return len(s.Files) == 0 }

// Error is a file of the state directory that does not read: nothing of the
// directory was taken.
type Error struct {
	Path    string // the file
	Line    int    // 1-based; 0 when the problem is the whole file
	Problem string
	Err     error
}

func (e *Error) Error() string {
	where := e.Path
	if e.Line > 0 {
		where = fmt.Sprintf("%s line %d", e.Path, e.Line)
	}
	return fmt.Sprintf("%s: %s; %s", model.SanitizeLine(where), model.SanitizeLine(e.Problem), e.recovery())
}

// recovery says how to mend the file, by what it is: a list is never to be
// removed (the file store refused to read a missing one as empty too).
func (e *Error) recovery() string {
	switch name := filepath.Base(e.Path); {
	case name == optOutsName:
		return "restore it from a backup, or mend it by hand (removing it would send to everyone on it)"
	case name == onceName:
		return "restore it from a backup, or mend it by hand (removing it would let a once-only send go again)"
	case e.Line > 0:
		return "mend or remove that line by hand, or restore the file from a backup"
	}
	return "mend it by hand, or restore it from a backup"
}

func (e *Error) Unwrap() error { return e.Err }

// Found reports whether dir holds state written by the file store: a send
// journal, an account's opt-outs or once-only ids, or the audit file. A
// directory that is not there holds none.
func Found(dir string) (bool, error) {
	for _, pattern := range []string{
		filepath.Join(dir, "sends", "*"+journalExt),
		filepath.Join(dir, "accounts", "*", optOutsName),
		filepath.Join(dir, "accounts", "*", onceName),
		filepath.Join(dir, auditName),
	} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			return false, err
		}
		if slices.ContainsFunc(m, func(path string) bool { return !movedListAt(path) }) {
			return true, nil
		}
	}
	if _, err := os.Stat(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("state directory %s: %w", dir, err)
	}
	return false, nil
}

// Read reads the file-store state of dir. A directory that is not there (or
// holds none) gives an empty snapshot.
func Read(dir string) (*Snapshot, error) {
	s := &Snapshot{Dir: dir, hash: sha256.New()}
	for _, read := range []func(*Snapshot) error{readSends, readAccounts, readAudit} {
		if err := read(s); err != nil {
			return nil, err
		}
	}
	s.Digest = hex.EncodeToString(s.hash.Sum(nil))
	return s, nil
}

// readFile reads a file of the file store's and adds it to the digest.
func (s *Snapshot) readFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(s.hash, "%s\x00%d\x00", filepath.ToSlash(s.rel(path)), len(data))
	s.hash.Write(data)
	return data, nil
}

// rel is path relative to the snapshot's directory.
func (s *Snapshot) rel(path string) string {
	if r, err := filepath.Rel(s.Dir, path); err == nil {
		return r
	}
	return path
}

// note adds a note for the report.
func (s *Snapshot) note(format string, args ...any) {
	s.Notes = append(s.Notes, model.SanitizeLine(fmt.Sprintf(format, args...)))
}

// readDir lists dir; a directory that is not there lists nothing, and
// neither does the file an upgrade left in its place.
func readDir(dir string) ([]fs.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || err != nil && moved(dir) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", dir, err)
	}
	return entries, nil
}
