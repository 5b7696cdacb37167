package dispatch

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// Job is one paired send: its items and which of them this run sends. Make one
// with NewJob for a new send or ResumeJob to pick up a journaled one.
type Job struct {
	ID        string
	Sender    string
	CreatedAt time.Time
	Items     []model.JournalItem // every item of the send, in plan order

	again      []model.UnknownChunk   // unknown chunks this run sends again whole, first, as they went
	send       []int                  // plan indexes this run sends in new chunks, in order
	optedOut   []int                  // items this run leaves out as opted out (OptOut)
	prior      map[int]model.SentItem // results of earlier runs (resume)
	resume     bool
	inclUnk    bool
	firstChunk int
}

// NewID returns a fresh send id, sortable by time and safe as a file name,
// e.g. "20260102-150405-3fa9c1". Its date and time are UTC whatever the
// profile's zone: an id is a key (--resume ID, history show ID and its
// prefixes, every id in every ledger so far), the same on every host and
// for every profile of a shared ledger, and it sorts as the sends were
// made through a change of clocks (a zone's hour that repeats in autumn
// would not). Faces show when a send was planned in the profile's zone
// beside it.
func NewID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// NewJob makes a job that sends every item but the opted-out ones (which
// are journaled, never sent). Items should come from a plan that validated
// (model.SendPlan.OK); their Index values must be distinct.
func NewJob(id, sender string, items []model.JournalItem) *Job {
	j := &Job{ID: id, Sender: sender, CreatedAt: time.Now(), Items: items}
	j.send = make([]int, 0, len(items))
	for _, it := range items {
		if !it.OptedOut {
			j.send = append(j.send, it.Index)
		}
	}
	return j
}

// OptOut leaves out of a resume the items (plan indexes) whose recipients
// were put on the opt-out list since the send was planned: the resume
// record names them, and they replay as opted out, never sent. An unknown
// chunk that was to go again as it went (Again) and holds one of them
// cannot: its other items go apart, in new chunks under new keys.
func (j *Job) OptOut(indexes []int) {
	out := make(map[int]bool, len(indexes))
	for _, i := range indexes {
		out[i] = true
	}
	again := j.again[:0]
	for _, u := range j.again {
		if slices.ContainsFunc(u.Indexes, func(i int) bool { return out[i] }) {
			j.send = append(j.send, u.Indexes...)
			continue
		}
		again = append(again, u)
	}
	if len(again) != len(j.again) {
		slices.Sort(j.send)
	}
	j.again = again
	keep := j.send[:0]
	for _, i := range j.send {
		if out[i] {
			j.optedOut = append(j.optedOut, i)
		} else {
			keep = append(keep, i)
		}
	}
	j.send = keep
}

// OptedOut are the items this run leaves out as opted out (OptOut).
func (j *Job) OptedOut() []int { return append([]int(nil), j.optedOut...) }

// ResumeJob makes a job from a replayed journal that sends only the items
// certainly not taken (never sent, rejected, failed) and, when includeUnknown
// is true — only after the operator confirmed it — the unknown ones. Accepted
// items never go again. The run appends to the same journal (open it for
// appending); the job keeps the send's id.
//
// An unknown chunk whose items are all still unknown goes again first, as
// it went: the same items in the same order, under its chunk number and
// Idempotency-Key, so that a service that honours the key drops what it
// took the first time. Unknown items whose chunk cannot go again so (some
// of its items have an outcome since, or the journal lacks its request: see
// model.UnknownChunk.Why) go in new chunks under new keys; Apart lists them
// for the operator to be told before anything is sent.
func ResumeJob(st *model.JournalState, includeUnknown bool) *Job {
	j := &Job{
		ID: st.Plan.ID, Sender: st.Plan.Sender, CreatedAt: st.Plan.Time,
		prior: make(map[int]model.SentItem, len(st.Items)), resume: true, inclUnk: includeUnknown,
		firstChunk: st.NextChunk,
	}
	for _, it := range st.Items {
		j.Items = append(j.Items, it.JournalItem)
		j.prior[it.Index] = it
	}
	j.send = st.ResumeIndexes(includeUnknown)
	if includeUnknown {
		whole := map[int]bool{}
		for _, u := range st.UnknownChunks() {
			if u.Whole {
				j.again = append(j.again, u)
				for _, i := range u.Indexes {
					whole[i] = true
				}
			}
		}
		keep := j.send[:0]
		for _, i := range j.send {
			if !whole[i] {
				keep = append(keep, i)
			}
		}
		j.send = keep
	}
	return j
}

// Again returns the unknown chunks this run sends again whole, as they
// first went (number, items in order, key).
func (j *Job) Again() []model.UnknownChunk { return append([]model.UnknownChunk(nil), j.again...) }

// Narrow keeps only the items the operator agreed to send (approved, from
// the state they were shown) of those the fresh state still leaves to send,
// and reports how many of the approved ones another run settled meanwhile.
// An item the fresh state would send but the operator was not asked about
// is never added.
func (j *Job) Narrow(approved []int) (gone int) {
	ok := make(map[int]bool, len(approved))
	for _, i := range approved {
		ok[i] = true
	}
	again := j.again[:0]
	for _, u := range j.again {
		all := true
		for _, i := range u.Indexes {
			all = all && ok[i]
		}
		if all { // a chunk goes again whole or not at all
			again = append(again, u)
			for _, i := range u.Indexes {
				delete(ok, i)
			}
		}
	}
	j.again = again
	keep := j.send[:0]
	for _, i := range j.send {
		if ok[i] {
			keep = append(keep, i)
			delete(ok, i)
		}
	}
	j.send = keep
	return len(ok)
}

// ToSend returns the plan indexes this run will send, in order: the unknown
// chunks sent again whole first, then the rest.
func (j *Job) ToSend() []int {
	var out []int
	for _, u := range j.again {
		out = append(out, u.Indexes...)
	}
	return append(out, j.send...)
}

// IsResume reports whether the job continues a journaled send.
func (j *Job) IsResume() bool { return j.resume }

// check validates the job before anything is sent and returns its items'
// positions by plan index.
func (j *Job) check() (positions, error) {
	if j.ID == "" {
		return positions{}, fmt.Errorf("dispatch: job has no id")
	}
	if j.Sender == "" {
		return positions{}, fmt.Errorf("dispatch: job %s has no sender line", j.ID)
	}
	pos, dup, ok := newPositions(j.Items)
	if !ok {
		return positions{}, fmt.Errorf("dispatch: job %s: item index %d appears twice", j.ID, dup)
	}
	for _, i := range j.ToSend() {
		if _, ok := pos.get(i); !ok {
			return positions{}, fmt.Errorf("dispatch: job %s: no item with index %d", j.ID, i)
		}
	}
	return pos, nil
}

// firstRecord is the record a run of the job begins with: its plan for a
// new job, a resume record for a resumed one (Options.Plan, Options.Resume).
func (j *Job) firstRecord(now time.Time, o Options) (model.JournalRecord, error) {
	switch {
	case j.resume && o.Plan != nil:
		return nil, fmt.Errorf("dispatch: job %s continues a send: its first record is a resume (Options.Resume), not a plan", j.ID)
	case !j.resume && o.Resume != nil:
		return nil, fmt.Errorf("dispatch: job %s is a new send: its first record is its plan (Options.Plan), not a resume", j.ID)
	case j.resume:
		return j.resumeRecord(now, o), nil
	}
	return j.planRecord(now, o), nil
}

// planRecord is a new job's plan: o.Plan as the caller built it, with the
// job's id, sender and items, the size the engine chunks by, and now when
// it has no time.
func (j *Job) planRecord(now time.Time, o Options) *model.JournalPlan {
	var p model.JournalPlan
	if o.Plan != nil {
		p = *o.Plan
	}
	p.ID, p.Sender, p.ChunkSize = j.ID, j.Sender, o.ChunkSize
	if p.Time.IsZero() {
		p.Time = now
	}
	p.Items = make([]model.JournalItem, len(j.Items))
	for i, it := range j.Items {
		p.Items[i] = model.JournalItem{Index: it.Index, Recipient: it.Recipient, Message: it.Message, Parts: it.Parts, Line: it.Line, OptedOut: it.OptedOut}
	}
	return &p
}

// resumeRecord is a resumed job's first record: o.Resume as the caller
// built it, with the items this run sends and leaves out as the job says,
// and now when it has no time.
func (j *Job) resumeRecord(now time.Time, o Options) *model.JournalResume {
	var r model.JournalResume
	if o.Resume != nil {
		r = *o.Resume
	}
	r.Indexes, r.IncludeUnknown, r.OptedOut = j.ToSend(), j.inclUnk, j.OptedOut()
	if r.Time.IsZero() {
		r.Time = now
	}
	return &r
}
