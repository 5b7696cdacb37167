package model

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"time"
)

// ErrNotJournal is returned when a file does not start with a plan record.
var ErrNotJournal = errors.New("not a send journal (no plan record)")

// ReplayJournal reads a send journal and returns each item's state. It tolerates
// a truncated last line and skips (and counts) unreadable lines elsewhere; an
// intent without an outcome makes its items unknown.
func ReplayJournal(r io.Reader) (*JournalState, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var s *JournalState
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var lerr error
			if s, lerr = s.replayLine(lineNo, line); lerr != nil {
				return nil, lerr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading journal: %w", err)
		}
	}
	if s == nil {
		return nil, ErrNotJournal
	}
	if s.pending != 0 {
		s.markUncertain(s.pending) // the last complete line: perhaps an intent
	}
	s.finish()
	return s, nil
}

// replayLine folds journal line lineNo into s, the state so far (nil before
// the plan), and returns the state after it: the plan starts it, a line
// that does not parse is damage (or, without its newline, a truncated
// tail); before the plan either is not a journal.
func (s *JournalState) replayLine(lineNo int, line []byte) (*JournalState, error) {
	complete := line[len(line)-1] == '\n'
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return s, nil
	}
	rec, perr := UnmarshalJournalRecord(trimmed)
	switch {
	case perr != nil && s == nil:
		return nil, fmt.Errorf("line %d: %w (%w)", lineNo, ErrNotJournal, perr)
	case perr != nil && !complete:
		s.TruncatedTail = true
	case perr != nil:
		s.damaged(lineNo, trimmed)
	case s == nil:
		plan, ok := rec.(*JournalPlan)
		if !ok {
			return nil, fmt.Errorf("line %d: %w", lineNo, ErrNotJournal)
		}
		return newJournalState(plan), nil
	default:
		s.apply(rec)
	}
	return s, nil
}

// ReplayRecords replays records already read (the plan first), as
// ReplayJournal replays their lines: for a reader that has parsed them
// (each record that did not parse is damage there, never skipped).
func ReplayRecords(recs []JournalRecord) (*JournalState, error) {
	if len(recs) == 0 {
		return nil, ErrNotJournal
	}
	plan, ok := recs[0].(*JournalPlan)
	if !ok {
		return nil, fmt.Errorf("record 1: %w", ErrNotJournal)
	}
	s := newJournalState(plan)
	for _, rec := range recs[1:] {
		s.apply(rec)
	}
	s.finish()
	return s, nil
}

// finish settles what the records left open once every one is replayed.
func (s *JournalState) finish() {
	s.settleInFlight()
	s.settleUncertain()
	if !s.Ended && !s.Waiting() && s.Cancel == nil {
		s.Interrupted = true // a scheduled send not yet started was not interrupted
	}
}

func newJournalState(p *JournalPlan) *JournalState {
	s := &JournalState{Plan: *p, Runs: 1, Updated: p.Time, pos: make(map[int]int, len(p.Items))}
	if !p.ScheduledFor.IsZero() {
		s.Runs = 0 // the runner's resume record is its first run
	}
	s.Items = make([]SentItem, len(p.Items))
	for i, it := range p.Items {
		s.Items[i] = SentItem{JournalItem: it, State: StateQueued}
		if it.OptedOut {
			s.Items[i].State = StateOptedOut
		}
		s.pos[it.Index] = i
	}
	s.Plan.Items = nil // held in Items
	return s
}

// apply folds one record after the plan into the state.
func (s *JournalState) apply(rec JournalRecord) {
	if s.pending != 0 {
		if o, ok := rec.(*JournalOutcome); !ok || !s.orphan(o) {
			s.markUncertain(s.pending)
		}
		s.pending = 0 // else the damaged line was this outcome's intent
	}
	_, s.prevIntent = rec.(*JournalIntent)
	switch r := rec.(type) {
	case *JournalPlan:
		s.Damaged++ // a second plan: not ours to merge
	case *JournalIntent:
		s.touch(r.Time)
		s.NextChunk = max(s.NextChunk, r.Chunk+1)
		if _, seen := s.Chunks[r.Chunk]; !seen {
			if s.Chunks == nil {
				s.Chunks = map[int]JournalChunk{}
			}
			s.Chunks[r.Chunk] = JournalChunk{Indexes: slices.Clone(r.Indexes), Key: r.Key}
		}
		for _, i := range r.Indexes {
			if it, ok := s.Item(i); ok {
				it.State, it.Chunk = StateSending, r.Chunk
			}
		}
	case *JournalOutcome:
		s.touch(r.Time)
		s.NextChunk = max(s.NextChunk, r.Chunk+1)
		for _, res := range r.Results {
			it, ok := s.Item(res.Index)
			if !ok {
				continue
			}
			if it.Chunk != r.Chunk || it.State != StateSending {
				// An outcome not tied to this item's intent for certain (the
				// intent's line is damaged or missing): whatever it says, the
				// item may have gone. Never "not sent"; never a guessed verdict.
				if it.State != StateAccepted {
					it.State = StateUnknown
					it.Error = fmt.Sprintf("the journal has an outcome (chunk %d) without its intent: whether this message went cannot be known for certain", r.Chunk)
					it.At = r.Time
				}
				continue
			}
			it.State = res.State
			if !res.State.known() || it.State == StateSending {
				// "" or a state word from a newer version: unknown.
				it.State = StateUnknown
			}
			it.MessageID, it.Code, it.Error = res.MessageID, res.Code, res.Error
			it.BatchID, it.At = r.BatchID, r.Time
		}
	case *JournalDelivery:
		s.touch(r.Time)
		if r.Off {
			s.DeliveryOff = true
		}
		for _, u := range r.Updates {
			if it, ok := s.Item(u.Index); ok && it.State == StateAccepted {
				it.Delivery = u.State
			}
		}
	case *JournalResume:
		s.touch(r.Time)
		s.settleInFlight() // whatever the earlier run left in flight is unknown
		s.Runs++
		if s.Runs == 1 && s.Scheduled() {
			s.StartedBy, s.StartedAt = r.Runner, r.Time
		}
		s.Runner = r.Runner
		if !s.HeldUntil.IsZero() && s.Hold != nil { // it goes on after a hold: who did, kept past its end
			s.Hold.ContinuedAt, s.Hold.Runner, s.Hold.Operator = r.Time, r.Runner, r.Operator
		}
		s.Ended, s.Interrupted, s.EndError, s.Stopped, s.StopCause = false, false, "", "", ""
		s.HeldUntil = time.Time{}
		for _, i := range r.OptedOut {
			if it, ok := s.Item(i); ok && it.State.CertainlyNotTaken() {
				it.State, it.At = StateOptedOut, r.Time
			}
		}
	case *JournalOptedOut:
		s.applyOptedOut(r)
	case *JournalEnd:
		s.end(r)
	case *JournalCancel:
		if s.Scheduled() && s.Runs == 0 && s.Cancel == nil { // after a start it is not ours to heed
			s.touch(r.Time)
			c := *r
			s.Cancel = &c
		}
	}
}

// end applies a run's end: what it left in flight is unknown; a refusal
// that stopped it, or a write to the ledger that failed (its Error: the
// run stopped for the ledger, StopLedger), is why it stopped.
func (s *JournalState) end(r *JournalEnd) {
	s.touch(r.Time)
	s.settleInFlight()
	s.Ended, s.Interrupted, s.EndError = true, r.Interrupted, r.Error
	s.Stopped, s.StopCause, s.HeldUntil = r.Stopped, r.StopCause, r.HeldUntil
	if r.Error != "" && r.Stopped == "" {
		s.Stopped, s.StopCause = r.Error, StopLedger
	}
	if !r.HeldUntil.IsZero() {
		s.Hold = &JournalHold{Until: r.HeldUntil}
	}
}

// damaged counts an unreadable line and decides what it may have been:
//   - a delivery, resume or end record (its type still readable): nothing
//     about sending;
//   - right after an intent: that chunk's outcome (the engine writes nothing
//     else between them); its items stay in flight, so they replay unknown;
//   - else perhaps an intent: explained if the next record is an outcome
//     without its intent (then those items are unknown), otherwise the items
//     it concerned cannot be told and none is "not sent" (settleUncertain).
func (s *JournalState) damaged(lineNo int, line []byte) {
	s.Damaged++
	s.DamagedLines = append(s.DamagedLines, lineNo)
	after := s.prevIntent
	s.prevIntent = false
	if m := recordType.FindSubmatch(line); m != nil {
		switch string(m[1]) {
		case RecordDelivery, RecordResume, RecordEnd, RecordCancel, RecordOptedOut:
			return
		}
	}
	if after {
		return
	}
	if s.pending != 0 {
		s.markUncertain(s.pending) // two damaged lines in a row
	}
	s.pending = lineNo
}

// orphan reports whether an outcome has no intent of its own in the journal
// (none of its items is in flight in its chunk).
func (s *JournalState) orphan(o *JournalOutcome) bool {
	for _, res := range o.Results {
		if it, ok := s.Item(res.Index); ok && it.Chunk == o.Chunk && it.State == StateSending {
			return false
		}
	}
	return len(o.Results) > 0
}

func (s *JournalState) markUncertain(lineNo int) {
	if s.uncertain == 0 {
		s.uncertain = lineNo
	}
}

var recordType = regexp.MustCompile(`^\{"type":"(\w+)"`)

// settleUncertain makes every item still "not sent" unknown when a damaged
// line may have been its intent.
func (s *JournalState) settleUncertain() {
	if s.uncertain == 0 {
		return
	}
	for i := range s.Items {
		if s.Items[i].State == StateQueued {
			s.Items[i].State = StateUnknown
			s.Items[i].Error = fmt.Sprintf("the journal's line %d is damaged and may have been this message's request: whether it went cannot be known for certain", s.uncertain)
		}
	}
}

// settleInFlight turns intents without outcomes into unknown items.
func (s *JournalState) settleInFlight() {
	for i := range s.Items {
		if s.Items[i].State == StateSending {
			s.Items[i].State = StateUnknown
			s.Items[i].Error = "no answer recorded: the request may have reached the service"
		}
	}
}

func (s *JournalState) touch(t time.Time) {
	if t.After(s.Updated) {
		s.Updated = t
	}
}
