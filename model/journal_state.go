package model

import (
	"fmt"
	"slices"
	"time"
)

// SentItem is one item of a send as its journal tells it.
type SentItem struct {
	JournalItem
	State     ItemState `json:"state"`
	MessageID string    `json:"message_id,omitempty"`
	BatchID   string    `json:"batch_id,omitempty"`
	Code      string    `json:"code,omitempty"`
	Error     string    `json:"error,omitempty"`
	Delivery  string    `json:"delivery,omitempty"` // last polled delivery state
	Chunk     int       `json:"chunk,omitempty"`    // the chunk of its latest attempt
	// At is when the outcome that gave it its state was recorded (zero while
	// queued); for an accepted item, when it was accepted.
	At time.Time `json:"-"`
}

// StateCounts counts a send's items per state.
type StateCounts struct {
	Total    int `json:"total"`
	Accepted int `json:"accepted"`
	Rejected int `json:"rejected"`
	Failed   int `json:"failed"`
	Unknown  int `json:"unknown"`
	NotSent  int `json:"not_sent"` // queued: never taken
	// OptedOut counts recipients on the opt-out list: never sent.
	OptedOut  int `json:"opted_out"`
	Sending   int `json:"sending"`
	Delivered int `json:"delivered"`
	// Undelivered counts accepted messages the service reports failed or rejected.
	Undelivered int `json:"undelivered"`
}

// Add counts one item.
func (c *StateCounts) Add(st ItemState, delivery string) {
	c.Total++
	switch st {
	case StateAccepted:
		c.Accepted++
		switch delivery {
		case "delivered":
			c.Delivered++
		case "failed", "rejected":
			c.Undelivered++
		}
	case StateRejected:
		c.Rejected++
	case StateFailed:
		c.Failed++
	case StateUnknown:
		c.Unknown++
	case StateSending:
		c.Sending++
	case StateOptedOut:
		c.OptedOut++
	default:
		c.NotSent++
	}
}

// JournalState is a send replayed from its journal.
type JournalState struct {
	Plan  JournalPlan
	Items []SentItem // in plan order
	// Runs counts the runs that worked on the send (the first plus resumes;
	// a scheduled send's first run is the resume record that starts it).
	Runs int
	// Ended is true when the latest run wrote its end record; Interrupted when it
	// was cancelled or never ended (the process died or is still running).
	Ended       bool
	Interrupted bool
	EndError    string
	// Stopped is the refusal that stopped the latest run and its cause
	// (JournalEnd.Stopped, StopCause), or the write to the ledger that
	// failed and stopped it (JournalEnd.Error, StopLedger).
	Stopped, StopCause string
	// HeldUntil is when a run stopped at quiet hours may go on (zero
	// otherwise): what it left is held, not sent.
	HeldUntil time.Time
	// Hold is the latest hold at quiet hours and the run that went on
	// after it, kept once the send goes on and completes (HeldUntil is
	// zero again then); nil when quiet hours never held the send.
	Hold *JournalHold
	// StartedBy is the runner that started a scheduled send at its time
	// (its first run's JournalResume.Runner), StartedAt when; "" and zero
	// until it starts. Runner is the latest run's ("" when an operator
	// started it).
	StartedBy, Runner string
	StartedAt         time.Time
	// Cancel says why a scheduled send never started (cancelled, missed);
	// nil otherwise.
	Cancel *JournalCancel
	// NextChunk is the number the next chunk of this send should take.
	NextChunk int
	// Chunks are the chunks the journal's intents sent, by number: their
	// items in the order they went and their Idempotency-Key (UnknownChunks
	// sends an unknown chunk again exactly so).
	Chunks map[int]JournalChunk
	// Damaged counts unreadable lines skipped (DamagedLines their numbers);
	// TruncatedTail is true when the last line was cut short (the process
	// died while writing it).
	Damaged       int
	DamagedLines  []int
	TruncatedTail bool
	// DeliveryOff is true once the service said it has no status endpoint.
	DeliveryOff bool
	Updated     time.Time // time of the latest record

	pos map[int]int // plan index → position in Items
	// uncertain is set by a damaged line that may have been an intent whose
	// items cannot be told: then no item is "not sent". It holds the first
	// such line's number, 0 when none.
	uncertain int
	// pending is a damaged line not yet explained: the next record tells
	// whether it was an intent (an outcome follows without its intent) or not.
	pending    int
	prevIntent bool // the last record applied was an intent

}

// JournalHold is a hold at quiet hours as the journal tells it: until
// when, and who went on with the send after it.
type JournalHold struct {
	Until time.Time
	// ContinuedAt is when a run went on with the send (zero while it is
	// held); Runner the runner that did (RunnerServe, RunnerScheduler,
	// RunnerCron), "" for an operator's resume; Operator the operator who
	// resumed it on a served console (nil at a local terminal, or a runner).
	ContinuedAt time.Time
	Runner      string
	Operator    *Operator
}

// Continued reports whether a run went on with the send after the hold.
func (h *JournalHold) Continued() bool { return h != nil && !h.ContinuedAt.IsZero() }

// Counts counts the send's items per state.
func (s *JournalState) Counts() StateCounts {
	var c StateCounts
	for _, it := range s.Items {
		c.Add(it.State, it.Delivery)
	}
	return c
}

// Complete reports whether the latest run ended normally with every item
// given a certain verdict: accepted, rejected, failed or opted out, none
// unknown.
func (s *JournalState) Complete() bool { return s.over() && s.Counts().Unknown == 0 }

// Unresolved reports whether the latest run ended normally with every item
// given a verdict, some of them unknown: the send is over, but whether
// those recipients got their message nobody can tell yet. It needs a look
// (history show, the provider's panel), never a silent "complete".
func (s *JournalState) Unresolved() bool { return s.over() && s.Counts().Unknown > 0 }

// over reports whether the latest run ended normally with every item given
// a verdict (an unknown outcome is one: nothing more will come of it).
func (s *JournalState) over() bool {
	if !s.Ended || s.Interrupted {
		return false
	}
	for _, it := range s.Items {
		if !it.State.Final() {
			return false
		}
	}
	return true
}

// ResumeIndexes returns the plan indexes a resume may send: items certainly not
// taken (never sent, rejected, failed) and, only with includeUnknown — after the
// operator agreed — items whose outcome is unknown. Accepted items never go again.
func (s *JournalState) ResumeIndexes(includeUnknown bool) []int {
	var out []int
	for _, it := range s.Items {
		if it.State.CertainlyNotTaken() || includeUnknown && it.State == StateUnknown {
			out = append(out, it.Index)
		}
	}
	return out
}

// JournalChunk is one chunk as its first intent sent it.
type JournalChunk struct {
	Indexes []int  // plan indexes, in the order they went
	Key     string // the request's Idempotency-Key
}

// UnknownChunk is a chunk with items of unknown outcome, for sending them
// again: Whole when every item of the chunk is still unknown, so that the
// very request can go again (same items, same order, same key) and a
// service that honours the key drops what it took the first time.
type UnknownChunk struct {
	Chunk   int
	Indexes []int  // the chunk's items as they first went
	Key     string // its Idempotency-Key
	Whole   bool
	// Unknown are the chunk's items whose outcome is unknown; when the
	// chunk is not Whole, Why says why it cannot go again as it went.
	Unknown []int
	Why     string
}

// UnknownChunks returns the chunks that hold the send's unknown items, in
// chunk order; unknown items without a chunk the journal recorded (its
// intent's line is damaged or missing) come last, as one chunk numbered -1
// that is not Whole.
func (s *JournalState) UnknownChunks() []UnknownChunk {
	const unplaced = -1
	byChunk := map[int][]int{}
	var nums []int
	for _, it := range s.Items {
		if it.State != StateUnknown {
			continue
		}
		c := it.Chunk
		if ch, ok := s.Chunks[c]; !ok || !slices.Contains(ch.Indexes, it.Index) {
			c = unplaced // its outcome came without its intent
		}
		if _, seen := byChunk[c]; !seen {
			nums = append(nums, c)
		}
		byChunk[c] = append(byChunk[c], it.Index)
	}
	slices.Sort(nums)
	if len(nums) > 0 && nums[0] == unplaced {
		nums = append(nums[1:], unplaced) // the unplaced ones last
	}
	out := make([]UnknownChunk, 0, len(nums))
	for _, n := range nums {
		u := UnknownChunk{Chunk: n, Unknown: byChunk[n]}
		if n == unplaced {
			u.Why = "the journal does not have the request they went in (a damaged or missing line)"
			out = append(out, u)
			continue
		}
		c := s.Chunks[n]
		u.Indexes, u.Key = c.Indexes, c.Key
		settled := 0 // items of the chunk with an outcome since, or that went again in another chunk
		for _, ix := range c.Indexes {
			if it, ok := s.Item(ix); !ok || it.State != StateUnknown || it.Chunk != n {
				settled++
			}
		}
		u.Whole = settled == 0
		if !u.Whole {
			u.Why = fmt.Sprintf("%d of the %d items of chunk %d have an outcome since, or went again in another chunk (sending the chunk again would send them again too)", settled, len(c.Indexes), n)
		}
		out = append(out, u)
	}
	return out
}

// Held reports whether quiet hours stopped the latest run with items left
// not sent: they wait for HeldUntil, resumable.
func (s *JournalState) Held() bool {
	return !s.HeldUntil.IsZero() && s.Counts().NotSent > 0
}

// Item returns the item with plan index i.
func (s *JournalState) Item(i int) (*SentItem, bool) {
	p, ok := s.pos[i]
	if !ok {
		return nil, false
	}
	return &s.Items[p], true
}

// Cancelled reports whether a scheduled send was cancelled before its time
// (a missed one was not: it may still be sent by hand).
func (s *JournalState) Cancelled() bool { return s.Cancel != nil && s.Cancel.Cause == CancelCancelled }

// Scheduled reports whether the send was scheduled (Plan.ScheduledFor).
func (s *JournalState) Scheduled() bool { return !s.Plan.ScheduledFor.IsZero() }

// Waiting reports whether a scheduled send is still to start: not started,
// cancelled or missed. A damaged or cut line may have been its start, and
// a recipient in any state but not sent or opted out says a run touched
// it: such a send is never started by a runner (history shows it
// interrupted; a resume by hand looks at it item by item).
func (s *JournalState) Waiting() bool {
	if !s.Scheduled() || s.Runs > 0 || s.Cancel != nil || s.Ended || s.Damaged > 0 || s.TruncatedTail {
		return false
	}
	for _, it := range s.Items {
		if it.State != StateQueued && it.State != StateOptedOut {
			return false
		}
	}
	return true
}

// SortedIndexes returns the plan indexes of items in the given states, in order.
func (s *JournalState) SortedIndexes(states ...ItemState) []int {
	var out []int
	for _, it := range s.Items {
		if slices.Contains(states, it.State) {
			out = append(out, it.Index)
		}
	}
	slices.Sort(out)
	return out
}
