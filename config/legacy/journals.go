package legacy

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/smsdesk/smsdesk/model"
)

// File names the file store used under sends/.
const (
	journalExt = ".jsonl"
	pairsExt   = ".pairs"
	lockExt    = ".lock"
)

// Send is one send's journal.
type Send struct {
	ID   string // the journal's name without .jsonl: the send's id, kept
	Path string // relative to the state directory
	// Records are the journal's lines in order, the plan first, as the file
	// store wrote them (a last line cut short left out).
	Records []model.JournalRecord
	// State is the journal replayed, as history and resume read it.
	State *model.JournalState
	// CutTail: the last line was cut short (the process died writing it)
	// and is left out, as the file store's replay left it out.
	CutTail bool
}

// errNoPlan is a journal with no complete first line: its process died
// before the plan was on disk, and so before anything of it was sent.
var errNoPlan = errors.New("no plan")

func readSends(s *Snapshot) error {
	dir := filepath.Join(s.Dir, "sends")
	entries, err := readDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		s.Files = append(s.Files, s.rel(path))
		id, isJournal := strings.CutSuffix(name, journalExt)
		switch {
		case isJournal && !e.IsDir():
			send, err := readJournal(s, path, id)
			if errors.Is(err, errNoPlan) {
				s.note("%s holds no plan (its process died before writing it, so nothing of it was sent): not imported", s.rel(path))
				continue
			}
			if err != nil {
				return err
			}
			send.Path = s.rel(path)
			if send.CutTail {
				s.note("%s: its last line was cut short (the process died writing it) and is left out, as history left it out", send.Path)
			}
			s.Sends = append(s.Sends, send)
		case !e.IsDir() && (strings.HasSuffix(name, pairsExt) || strings.HasSuffix(name, lockExt) || isTemp(name)):
			// the repeat guard's caches, the send-start lock, a crashed write's leftovers
		default:
			s.note("%s is not the file store's: not read, moved aside with the rest", s.rel(path))
		}
	}
	// os.ReadDir sorts by name: the sends are in id order.
	return nil
}

// isTemp reports whether name is a temp file of an atomic write
// (.<name>.tmp-<random>).
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}

// readJournal reads the journal at path, whose send id is id.
func readJournal(s *Snapshot, path, id string) (Send, error) {
	if !validID(id) {
		return Send{}, &Error{Path: path, Problem: "the file's name is not a send id (letters, digits, -, _ and .)"}
	}
	data, err := s.readFile(path)
	if err != nil {
		return Send{}, fmt.Errorf("reading send journal %s: %w", path, err)
	}
	recs, cut, err := parseJournal(data)
	var le *lineError
	if errors.As(err, &le) {
		return Send{}, &Error{Path: path, Line: le.line, Problem: le.problem, Err: le.err}
	}
	if err != nil {
		return Send{}, err
	}
	plan := recs[0].(*model.JournalPlan)
	if plan.ID != id {
		return Send{}, &Error{Path: path, Line: 1, Problem: fmt.Sprintf("the plan is of send %q, the file is named for %q", plan.ID, id)}
	}
	st, err := model.ReplayJournal(bytes.NewReader(data))
	if err != nil {
		return Send{}, &Error{Path: path, Problem: err.Error(), Err: err}
	}
	if st.Damaged > 0 { // parseJournal refused every line replay skips
		return Send{}, &Error{Path: path, Line: st.DamagedLines[0], Problem: "a line replay cannot read"}
	}
	return Send{ID: id, Records: recs, State: st, CutTail: cut}, nil
}

// validID is the file store's rule for a send id (config.Paths.JournalPath).
func validID(id string) bool {
	return id != "" && !strings.HasPrefix(id, ".") && !strings.ContainsFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	})
}

// lineError is a journal line that does not read.
type lineError struct {
	line    int
	problem string
	err     error
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.problem) }

func (e *lineError) Unwrap() error { return e.err }

// parseJournal reads a journal's lines: a plan, then the records that
// follow it. Any line that does not read is an error (*lineError), except
// the last when it was cut short (cut: it has no newline, as a process that
// died writing it leaves it; model.ReplayJournal leaves it out too). A
// journal with no complete line is errNoPlan; a first line that is no plan,
// or a second plan, is an error.
func parseJournal(data []byte) (recs []model.JournalRecord, cut bool, err error) {
	err = eachLine(data, func(n int, line []byte, complete bool) error {
		rec, perr := model.UnmarshalJournalRecord(line)
		switch _, isPlan := rec.(*model.JournalPlan); {
		case perr != nil && !complete:
			cut = true
			return nil
		case perr != nil:
			return &lineError{line: n, problem: perr.Error(), err: perr}
		case len(recs) == 0 && !isPlan:
			return &lineError{line: n, problem: fmt.Sprintf("a %s record before the send's plan: not a send journal", rec.RecordType())}
		case len(recs) > 0 && isPlan:
			return &lineError{line: n, problem: "a second plan: two sends in one journal"}
		}
		recs = append(recs, rec)
		return nil
	})
	if err == nil && len(recs) == 0 {
		err = errNoPlan
	}
	return recs, cut, err
}

// Pairs is what the send accepted or may have sent, as the repeat guard
// reads it: the digest the file store kept beside the journal
// (sends/<id>.pairs) rebuilt, by the rule it was built by
// (model.PairsOf, for a send no run holds). A scheduled send that has not
// started counts every pair it will send, at its time.
func (s Send) Pairs() model.SentPairs { return model.PairsOf(s.ID, s.State, false) }
