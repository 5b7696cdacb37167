package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// Send journals live in StateDir/sends/<id>.jsonl (files 0600, directory 0700):
// one per paired send, written by the send engine (client/dispatch) and read
// back by history and resume. See model.JournalRecord for the format.

const journalExt = ".jsonl"

// ErrJournalInUse is returned when another process holds a send's journal open
// for writing (it is sending or resuming that send right now).
var ErrJournalInUse = errors.New("the send is in use by another smsdesk process")

// ErrNoSuchSend is returned for a send id without a journal.
var ErrNoSuchSend = errors.New("no such send")

// SendsDir is the directory of send journals.
func (p Paths) SendsDir() string { return filepath.Join(p.StateDir, "sends") }

// JournalPath returns the journal file of send id, refusing ids that are not
// plain file names.
func (p Paths) JournalPath(id string) (string, error) {
	if id == "" || strings.HasPrefix(id, ".") || strings.ContainsFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	}) {
		return "", fmt.Errorf("send id %q: use the id `smsdesk history` shows (letters, digits, - and _)", model.SanitizeLine(id))
	}
	return filepath.Join(p.SendsDir(), id+journalExt), nil
}

// JournalFile is an open send journal, appended to by one process at a time
// (an exclusive lock is held while it is open). It satisfies dispatch.Journal.
type JournalFile struct {
	mu     sync.Mutex
	f      *os.File
	path   string
	unlock func()
}

// CreateJournal creates the journal of a new send. It fails if one exists.
func CreateJournal(p Paths, id string) (*JournalFile, error) {
	path, err := p.JournalPath(id)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(p.SendsDir(), 0o700); err != nil {
		return nil, fmt.Errorf("creating the send history directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating send journal: %w", err)
	}
	j, err := lockJournal(f, path)
	if err != nil {
		return nil, err
	}
	// The file's name must survive a crash too, or its synced intents would
	// vanish with it: sync the directory once, before anything is sent.
	if err := syncDir(p.SendsDir()); err != nil {
		j.Close()
		os.Remove(path)
		return nil, fmt.Errorf("creating send journal: %w", err)
	}
	return j, nil
}

// OpenJournal opens an existing journal for appending (resume, delivery
// refresh). A last line cut short by a killed process is cut off first, so
// that new records start on a line of their own.
func OpenJournal(p Paths, id string) (*JournalFile, error) {
	path, err := p.JournalPath(id)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0o600)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("send %s: %w (see `smsdesk history`)", id, ErrNoSuchSend)
	}
	if err != nil {
		return nil, fmt.Errorf("opening send journal: %w", err)
	}
	j, err := lockJournal(f, path)
	if err != nil {
		return nil, err
	}
	if err := j.cutPartialTail(); err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}

// OpenJournalLocked opens send id's journal for appending and replays it
// after its lock is taken: what a resume may send is decided from the journal
// as it is now, not as it was when the operator was asked. A second process
// that waited at its prompt while the first finished finds nothing left.
func OpenJournalLocked(p Paths, id string) (*JournalFile, *model.JournalState, error) {
	j, err := OpenJournal(p, id)
	if err != nil {
		return nil, nil, err
	}
	st, err := ReadJournal(p, id)
	if err != nil {
		j.Close()
		return nil, nil, err
	}
	return j, st, nil
}

func lockJournal(f *os.File, path string) (*JournalFile, error) {
	unlock, err := flockExclusive(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w; wait for it to finish", filepath.Base(path), ErrJournalInUse)
	}
	return &JournalFile{f: f, path: path, unlock: unlock}, nil
}

// cutPartialTail truncates the file after its last newline.
func (j *JournalFile) cutPartialTail() error {
	fi, err := j.f.Stat()
	if err != nil {
		return fmt.Errorf("reading send journal: %w", err)
	}
	size := fi.Size()
	const block = 64 << 10
	buf := make([]byte, block)
	for end := size; end > 0; {
		start := max(0, end-block)
		n, err := j.f.ReadAt(buf[:end-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading send journal: %w", err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			if keep := start + int64(i) + 1; keep < size {
				return j.truncate(keep)
			}
			return nil
		}
		end = start
	}
	if size > 0 {
		return j.truncate(0)
	}
	return nil
}

func (j *JournalFile) truncate(n int64) error {
	if err := j.f.Truncate(n); err != nil {
		return fmt.Errorf("cutting a damaged last line off the send journal: %w", err)
	}
	return nil
}

// Path is the journal's file name.
func (j *JournalFile) Path() string { return j.path }

// Append writes one record as one line, in one write call. It does not sync.
func (j *JournalFile) Append(rec model.JournalRecord) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return fmt.Errorf("send journal %s is closed", filepath.Base(j.path))
	}
	b, err := model.MarshalJournalRecord(rec)
	if err != nil {
		return err
	}
	if _, err := j.f.Write(b); err != nil {
		return fmt.Errorf("writing send journal %s: %w", filepath.Base(j.path), err)
	}
	return nil
}

// Sync makes every appended record durable: fdatasync on Linux (the file's
// data and its size, which is all an append-only file needs), fsync elsewhere.
func (j *JournalFile) Sync() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return fmt.Errorf("send journal %s is closed", filepath.Base(j.path))
	}
	if err := datasync(j.f); err != nil {
		return fmt.Errorf("syncing send journal %s: %w", filepath.Base(j.path), err)
	}
	return nil
}

// Close syncs, releases the lock and closes the file.
func (j *JournalFile) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := datasync(j.f)
	j.unlock()
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	j.f = nil
	return err
}

// CloseScheduled closes the journal of a scheduled send (its plan record
// written) and dates the file its start time: the repeat check skips
// journals last written before its window (RecentPairs), and a scheduled
// send's pairs are to go at its time, however long ago it was scheduled.
// The next record written (its start, or a cancel) dates it anew.
func (j *JournalFile) CloseScheduled(at time.Time) error {
	if err := j.Close(); err != nil {
		return err
	}
	if err := os.Chtimes(j.path, time.Time{}, at); err != nil {
		return fmt.Errorf("dating the scheduled send's journal: %w", err)
	}
	return nil
}

// Discard closes and removes the journal of a send that never started (its
// plan could not be written whole, e.g. on a full disk): nothing was sent,
// and a half-written plan would show in history as unreadable forever.
func (j *JournalFile) Discard() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f != nil {
		j.unlock()
		j.f.Close()
		j.f = nil
	}
	return os.Remove(j.path)
}

// ReadJournal replays send id's journal.
func ReadJournal(p Paths, id string) (*model.JournalState, error) {
	path, err := p.JournalPath(id)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("send %s: %w (see `smsdesk history`)", id, ErrNoSuchSend)
	}
	if err != nil {
		return nil, fmt.Errorf("opening send journal: %w", err)
	}
	defer f.Close()
	st, err := model.ReplayJournal(f)
	if err != nil {
		return nil, fmt.Errorf("send journal %s: %w", path, err)
	}
	return st, nil
}

// JournalInfo is one send in the history.
type JournalInfo struct {
	ID    string
	Path  string
	State *model.JournalState // nil when Err is set
	// Running is true while another process holds the journal (sending now).
	Running bool
	Err     error // the journal could not be read
}

// ListJournals returns every send in the history, newest first.
func ListJournals(p Paths) ([]JournalInfo, error) {
	entries, err := os.ReadDir(p.SendsDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the send history: %w", err)
	}
	var out []JournalInfo
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, journalExt) {
			continue
		}
		id := strings.TrimSuffix(name, journalExt)
		info := JournalInfo{ID: id, Path: filepath.Join(p.SendsDir(), name)}
		info.State, info.Err = ReadJournal(p, id)
		info.Running = JournalInUse(p, id)
		out = append(out, info)
	}
	slices.SortStableFunc(out, func(a, b JournalInfo) int {
		switch {
		case (a.State == nil) != (b.State == nil): // unreadable journals last
			if a.State == nil {
				return 1
			}
			return -1
		case a.State != nil && !a.State.Plan.Time.Equal(b.State.Plan.Time):
			return b.State.Plan.Time.Compare(a.State.Plan.Time)
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, nil
}

// JournalInUse reports whether another process has send id's journal open
// for writing.
func JournalInUse(p Paths, id string) bool {
	path, err := p.JournalPath(id)
	if err != nil {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return flockBusy(f)
}
