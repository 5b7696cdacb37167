package model

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// A send journal is a JSON-lines file, one record a line, written as a paired send
// goes out. It is the source of truth for a send's history and for resuming it:
//
//	plan     the send as planned: id, time, profile, sender and every item
//	intent   written and synced to disk BEFORE a chunk's request: chunk number,
//	         item indexes and the idempotency key
//	outcome  written after the request: per-item results, or a chunk-level verdict
//	delivery delivery states polled later for accepted messages
//	resume   a later run picks the send up again (its intents and outcomes follow);
//	         for a scheduled send, the run that starts it at its time
//	end      the run finished, completely or interrupted
//	cancel   a scheduled send that never started: cancelled, or missed
//
// An intent without an outcome means the request may have reached the service:
// its items are unknown. Replay (ReplayJournal) turns the records back into one
// state per item.

// ItemState is where one recipient of a paired send stands.
type ItemState string

// Item states. Queued items were never taken by the service (never attempted, or
// certainly not taken and due to go again); Sending is only seen live, between
// an intent and its outcome.
const (
	StateQueued   ItemState = "queued"   // not sent (yet)
	StateSending  ItemState = "sending"  // request in flight
	StateAccepted ItemState = "accepted" // the service took it (MessageID when given)
	StateRejected ItemState = "rejected" // the service refused it; nothing was sent
	StateFailed   ItemState = "failed"   // certainly not taken, and the run gave up on it
	StateUnknown  ItemState = "unknown"  // the request may have reached the service
	// StateOptedOut: the recipient is on the account's opt-out list (when the
	// send was planned, or when a resume of it started): never sent, and
	// never offered by a resume.
	StateOptedOut ItemState = "opted_out"
)

// known reports whether s is a state this version writes; a word from a
// newer version replays as unknown.
func (s ItemState) known() bool {
	switch s {
	case StateQueued, StateSending, StateAccepted, StateRejected, StateFailed, StateUnknown, StateOptedOut:
		return true
	}
	return false
}

// Final reports whether the state is a verdict for this run (not queued or sending).
func (s ItemState) Final() bool {
	return s == StateAccepted || s == StateRejected || s == StateFailed || s == StateUnknown || s == StateOptedOut
}

// CertainlyNotTaken reports whether an item in this state was certainly not
// taken by the service, so that sending it again cannot send it twice.
func (s ItemState) CertainlyNotTaken() bool {
	return s == StateQueued || s == StateRejected || s == StateFailed
}

// Record types, as written in each line's "type" field.
const (
	RecordPlan     = "plan"
	RecordIntent   = "intent"
	RecordOutcome  = "outcome"
	RecordDelivery = "delivery"
	RecordResume   = "resume"
	RecordEnd      = "end"
	RecordCancel   = "cancel"
	RecordOptedOut = "opted_out"
)

// JournalRecord is one line of a send journal: one of *JournalPlan,
// *JournalIntent, *JournalOutcome, *JournalDelivery, *JournalResume, *JournalEnd,
// *JournalCancel, *JournalOptedOut.
type JournalRecord interface {
	// RecordType is the record's "type" field.
	RecordType() string
}

// JournalItem is one planned item of a send. Index is its position in the plan
// and stays the item's identity for the life of the send.
type JournalItem struct {
	Index     int    `json:"index"`
	Recipient string `json:"recipient"`
	Message   string `json:"message"`
	Parts     int    `json:"parts,omitempty"`
	Line      int    `json:"line,omitempty"` // source line in the input file, when known
	// OptedOut: the recipient was on the opt-out list when the send was
	// planned; the item is journaled (the plan shows it) and never sent.
	OptedOut bool `json:"opted_out,omitempty"`
}

// JournalPlan is the first record: the send as planned.
type JournalPlan struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Profile string    `json:"profile,omitempty"`
	Sender  string    `json:"sender"`
	Source  string    `json:"source,omitempty"` // e.g. the pairs file or "group 12"
	// BaseURL is the service the send went to: a resume goes there too, or
	// says why not.
	BaseURL string `json:"base_url,omitempty"`
	// Account is the service account the send went to (AccountID: the
	// service's host and the key, digested): the repeat guard looks at the
	// sends of the account, whatever profile or operator made them. ""
	// in journals written before it was recorded.
	Account   string `json:"account,omitempty"`
	ChunkSize int    `json:"chunk_size,omitempty"`
	// Operator made the send on a served console (smsdesk serve); nil for
	// a send made at this machine's own terminal.
	Operator *Operator `json:"operator,omitempty"`
	// RepeatOf are earlier sends whose pairs this one sends again because
	// the operator said so (the repeat question, or --allow-repeat).
	RepeatOf []string `json:"repeat_of,omitempty"`
	// ResendOf is the earlier send whose failed messages this one sends
	// again (send-pair --resend-failed); "" otherwise.
	ResendOf string `json:"resend_of,omitempty"`
	// NoSuffix: the operator sent without the profile's opt-out suffix
	// (--no-suffix); Suffix is the suffix the messages end with otherwise.
	NoSuffix bool   `json:"no_suffix,omitempty"`
	Suffix   string `json:"suffix,omitempty"`
	// IgnoreQuietHours: the operator (Operator, on a served console) sent
	// inside, or past the start of, the profile's quiet hours on purpose;
	// QuietHours names the window as it stood ("22:00–08:00 Asia/Tehran").
	IgnoreQuietHours bool   `json:"ignore_quiet_hours,omitempty"`
	QuietHours       string `json:"quiet_hours,omitempty"`
	// ScheduledFor is when a scheduled send is to start (zero for a send
	// started at once): the plan was checked and confirmed at Time, by
	// Operator, and a runner (smsdesk serve, smsdesk scheduler) starts it
	// then with a resume record naming the runner.
	ScheduledFor time.Time     `json:"scheduled_for,omitzero"`
	Items        []JournalItem `json:"items"`
}

// JournalIntent is written and synced before a chunk's request goes out. A
// chunk sent again after a certain not-taken answer (429, connection refused)
// gets another intent with the same Chunk and Key.
type JournalIntent struct {
	Time    time.Time `json:"time"`
	Chunk   int       `json:"chunk"`
	Indexes []int     `json:"indexes"`
	Key     string    `json:"key"` // the request's Idempotency-Key
	Attempt int       `json:"attempt,omitempty"`
}

// JournalResult is the verdict on one item of a chunk.
type JournalResult struct {
	Index     int       `json:"index"`
	State     ItemState `json:"state"`
	MessageID string    `json:"message_id,omitempty"`
	Code      string    `json:"code,omitempty"`
	Error     string    `json:"error,omitempty"`
}

// JournalOutcome closes the chunk's latest intent. Results hold every item of
// the chunk; an item given StateQueued was certainly not taken and may go again
// (Retry: the same chunk will be sent again; Split: it will go in smaller chunks).
type JournalOutcome struct {
	Time    time.Time       `json:"time"`
	Chunk   int             `json:"chunk"`
	BatchID string          `json:"batch_id,omitempty"`
	Status  int             `json:"status,omitempty"` // HTTP status of a chunk-level error
	Code    string          `json:"code,omitempty"`
	Error   string          `json:"error,omitempty"`
	Retry   bool            `json:"retry,omitempty"`
	Split   bool            `json:"split,omitempty"`
	Results []JournalResult `json:"results"`
}

// JournalDelivery records delivery states polled for accepted messages.
type JournalDelivery struct {
	Time    time.Time        `json:"time"`
	Updates []DeliveryUpdate `json:"updates"`
	Off     bool             `json:"off,omitempty"` // the service has no status endpoint
}

// DeliveryUpdate is one message's polled delivery state (pending, sent,
// delivered, failed or rejected, as the service says).
type DeliveryUpdate struct {
	Index     int    `json:"index"`
	MessageID string `json:"message_id"`
	State     string `json:"state"`
}

// JournalResume starts a later run of the same send: Indexes are the items it
// will send; IncludeUnknown says the operator agreed to send unknown items again.
type JournalResume struct {
	Time           time.Time `json:"time"`
	Indexes        []int     `json:"indexes"`
	IncludeUnknown bool      `json:"include_unknown,omitempty"`
	// Operator resumed the send on a served console; nil at a local terminal.
	Operator *Operator `json:"operator,omitempty"`
	// OptedOut are items whose recipients were put on the opt-out list
	// since the send was planned: never sent.
	OptedOut []int `json:"opted_out,omitempty"`
	// IgnoreQuietHours: this run goes on through quiet hours on purpose.
	IgnoreQuietHours bool `json:"ignore_quiet_hours,omitempty"`
	// Runner is what started this run without an operator: a scheduled send
	// at its time, or a send held at quiet hours at their end (RunnerServe,
	// RunnerScheduler, RunnerCron); "" for a run an operator started.
	Runner string `json:"runner,omitempty"`
}

// What starts a scheduled send, or continues a held one, with no operator
// at hand (JournalResume.Runner, JournalCancel.Runner).
const (
	RunnerServe     = "serve"     // a running smsdesk serve, for the profile it serves
	RunnerScheduler = "scheduler" // smsdesk scheduler, in the foreground (a systemd unit)
	RunnerCron      = "cron"      // smsdesk scheduler --once (a cron job)
)

// Why a scheduled send never started (JournalCancel.Cause).
const (
	CancelCancelled = "cancelled" // an operator cancelled it before its time
	CancelMissed    = "missed"    // no runner ran until it was too late (past --late)
)

// StopLedger is the StopCause of a run a write to its journal stopped (its
// end's Error): the ledger failed (a full disk, a PostgreSQL gone, a lease
// lost), not the service.
const StopLedger = "ledger"

// JournalCancel ends a scheduled send that never started: nothing of it
// was sent, and nothing will be. Written under the journal's lock, like a
// start, so that a send is either started or cancelled, never both.
type JournalCancel struct {
	Time  time.Time `json:"time"`
	Cause string    `json:"cause"` // CancelCancelled or CancelMissed
	// Reason is the why for people ("no runner ran from 08:00 until
	// 09:30, past its 1h limit").
	Reason string `json:"reason,omitempty"`
	// Operator cancelled it on a served console (nil at a local terminal or
	// for a missed send); Runner marked it missed.
	Operator *Operator `json:"operator,omitempty"`
	Runner   string    `json:"runner,omitempty"`
}

// JournalEnd closes a run. Interrupted runs were cancelled or stopped before
// every item was attempted; Stopped is the service's refusal that stopped it
// (one that would repeat for every later chunk); Error says why a run stopped
// early for another reason: a write to its journal that failed (the run
// replays as stopped, StopCause StopLedger).
type JournalEnd struct {
	Time        time.Time `json:"time"`
	Interrupted bool      `json:"interrupted,omitempty"`
	Stopped     string    `json:"stopped,omitempty"`
	StopCause   string    `json:"stop_cause,omitempty"`
	Error       string    `json:"error,omitempty"`
	// HeldUntil is set when quiet hours stopped the run (StopCause
	// "quiet_hours"): the rest is held, not sent, and may go from then on.
	HeldUntil time.Time `json:"held_until,omitzero"`
}

// RecordType implements JournalRecord.
func (*JournalPlan) RecordType() string { return RecordPlan }

// RecordType implements JournalRecord.
func (*JournalIntent) RecordType() string { return RecordIntent }

// RecordType implements JournalRecord.
func (*JournalOutcome) RecordType() string { return RecordOutcome }

// RecordType implements JournalRecord.
func (*JournalDelivery) RecordType() string { return RecordDelivery }

// RecordType implements JournalRecord.
func (*JournalResume) RecordType() string { return RecordResume }

// RecordType implements JournalRecord.
func (*JournalEnd) RecordType() string { return RecordEnd }

// RecordType implements JournalRecord.
func (*JournalCancel) RecordType() string { return RecordCancel }

// RecordType implements JournalRecord.
func (*JournalOptedOut) RecordType() string { return RecordOptedOut }

// MarshalJournalRecord encodes rec as one journal line (JSON with a "type"
// field, ending in a newline).
func MarshalJournalRecord(rec JournalRecord) ([]byte, error) {
	var v any
	switch r := rec.(type) {
	case *JournalPlan:
		v = struct {
			Type string `json:"type"`
			*JournalPlan
		}{RecordPlan, r}
	case *JournalIntent:
		v = struct {
			Type string `json:"type"`
			*JournalIntent
		}{RecordIntent, r}
	case *JournalOutcome:
		v = struct {
			Type string `json:"type"`
			*JournalOutcome
		}{RecordOutcome, r}
	case *JournalDelivery:
		v = struct {
			Type string `json:"type"`
			*JournalDelivery
		}{RecordDelivery, r}
	case *JournalResume:
		v = struct {
			Type string `json:"type"`
			*JournalResume
		}{RecordResume, r}
	case *JournalEnd:
		v = struct {
			Type string `json:"type"`
			*JournalEnd
		}{RecordEnd, r}
	case *JournalCancel:
		v = struct {
			Type string `json:"type"`
			*JournalCancel
		}{RecordCancel, r}
	case *JournalOptedOut:
		v = struct {
			Type string `json:"type"`
			*JournalOptedOut
		}{RecordOptedOut, r}
	default:
		return nil, fmt.Errorf("journal: unknown record type %T", rec)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("journal: encoding %s record: %w", rec.RecordType(), err)
	}
	return append(b, '\n'), nil
}

// WriteJournalRecord writes rec as one line to w in a single Write call.
func WriteJournalRecord(w io.Writer, rec JournalRecord) error {
	b, err := MarshalJournalRecord(rec)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("journal: writing %s record: %w", rec.RecordType(), err)
	}
	return nil
}

// UnmarshalJournalRecordOf decodes line as a record of type typ, in one
// pass where UnmarshalJournalRecord makes two (a reader that knows the
// type, as the ledger's type column says it). A line of another type, or
// that does not parse, is an error.
func UnmarshalJournalRecordOf(typ string, line []byte) (JournalRecord, error) {
	var rec JournalRecord
	var v any
	var got *string
	switch typ {
	case RecordPlan:
		w := &struct {
			Type string `json:"type"`
			*JournalPlan
		}{JournalPlan: new(JournalPlan)}
		rec, v, got = w.JournalPlan, w, &w.Type
	case RecordIntent:
		w := &struct {
			Type string `json:"type"`
			*JournalIntent
		}{JournalIntent: new(JournalIntent)}
		rec, v, got = w.JournalIntent, w, &w.Type
	case RecordOutcome:
		w := &struct {
			Type string `json:"type"`
			*JournalOutcome
		}{JournalOutcome: new(JournalOutcome)}
		rec, v, got = w.JournalOutcome, w, &w.Type
	case RecordDelivery:
		w := &struct {
			Type string `json:"type"`
			*JournalDelivery
		}{JournalDelivery: new(JournalDelivery)}
		rec, v, got = w.JournalDelivery, w, &w.Type
	case RecordResume:
		w := &struct {
			Type string `json:"type"`
			*JournalResume
		}{JournalResume: new(JournalResume)}
		rec, v, got = w.JournalResume, w, &w.Type
	case RecordEnd:
		w := &struct {
			Type string `json:"type"`
			*JournalEnd
		}{JournalEnd: new(JournalEnd)}
		rec, v, got = w.JournalEnd, w, &w.Type
	case RecordCancel:
		w := &struct {
			Type string `json:"type"`
			*JournalCancel
		}{JournalCancel: new(JournalCancel)}
		rec, v, got = w.JournalCancel, w, &w.Type
	case RecordOptedOut:
		w := &struct {
			Type string `json:"type"`
			*JournalOptedOut
		}{JournalOptedOut: new(JournalOptedOut)}
		rec, v, got = w.JournalOptedOut, w, &w.Type
	default:
		return nil, fmt.Errorf("unknown journal record type %q", typ)
	}
	if err := json.Unmarshal(line, v); err != nil {
		return nil, fmt.Errorf("%s record: %w", typ, err)
	}
	if *got != typ {
		return nil, fmt.Errorf("a %q record where a %s record was to be", *got, typ)
	}
	return rec, nil
}

// UnmarshalJournalRecord decodes one journal line.
func UnmarshalJournalRecord(line []byte) (JournalRecord, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return nil, fmt.Errorf("not a journal record: %w", err)
	}
	var rec JournalRecord
	switch head.Type {
	case RecordPlan:
		rec = new(JournalPlan)
	case RecordIntent:
		rec = new(JournalIntent)
	case RecordOutcome:
		rec = new(JournalOutcome)
	case RecordDelivery:
		rec = new(JournalDelivery)
	case RecordResume:
		rec = new(JournalResume)
	case RecordEnd:
		rec = new(JournalEnd)
	case RecordCancel:
		rec = new(JournalCancel)
	case RecordOptedOut:
		rec = new(JournalOptedOut)
	default:
		return nil, fmt.Errorf("unknown journal record type %q", head.Type)
	}
	if err := json.Unmarshal(line, rec); err != nil {
		return nil, fmt.Errorf("%s record: %w", head.Type, err)
	}
	return rec, nil
}
