package model

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The repeat check: a pair (recipient and exact text) an earlier send of the
// same profile already had accepted is most likely the same file sent twice.
// Pairs are compared by a 64-bit digest (PairKey), so that the history of a
// hundred sends of ten thousand pairs fits in a few megabytes and is checked
// in milliseconds. Two different pairs sharing a digest is a chance of about
// one in 10^9 for such a history against a plan of ten thousand; the price of
// one is a warning the operator can overrule, never a message lost.

// SentPairs is what one earlier send accepted, or may have sent: one digest
// (PairKey) and time (Unix seconds) per pair. A pair whose outcome is unknown
// (the request may have reached the service), or that a run still working
// on the send may send any moment, counts too: a re-run that sent it again
// could send it twice, which is the repeat the check exists to stop.
type SentPairs struct {
	SendID string
	Keys   []uint64
	At     []int64 // same length as Keys
	// Maybe marks the pairs that may have gone rather than were accepted
	// (same length as Keys; nil when every pair was accepted).
	Maybe []bool
	// Running: a run (here or in another smsdesk) is still working on the
	// send, so its pairs not yet settled are in flight, not of unknown outcome.
	Running bool
	// Scheduled: the send is scheduled and not started; its pairs (Maybe,
	// At its time) will go then, without another word from an operator.
	Scheduled bool
}

// Add records one accepted pair.
func (s *SentPairs) Add(recipient, message string, at time.Time) {
	s.add(PairKey(recipient, message), at.Unix(), false)
}

// AddMaybe records one pair that may have gone: its outcome is unknown, or a
// running send may still send it.
func (s *SentPairs) AddMaybe(recipient, message string, at time.Time) {
	s.add(PairKey(recipient, message), at.Unix(), true)
}

func (s *SentPairs) add(key uint64, at int64, maybe bool) {
	if maybe && s.Maybe == nil {
		s.Maybe = make([]bool, len(s.Keys), cap(s.Keys)+1)
	}
	s.Keys = append(s.Keys, key)
	s.At = append(s.At, at)
	if s.Maybe != nil {
		s.Maybe = append(s.Maybe, maybe)
	}
}

// maybe reports whether pair j may have gone rather than was accepted.
func (s *SentPairs) maybe(j int) bool { return s.Maybe != nil && s.Maybe[j] }

// Repeat is an earlier send that accepted, or may have sent, some of a
// plan's pairs.
type Repeat struct {
	SendID string
	At     time.Time // when the latest of those pairs was accepted (or tried)
	Pairs  int       // how many of the plan's pairs it accepted or may have sent
	Items  []int     // their positions in the plan, in order
	// Unknown counts the pairs of Pairs whose outcome there is unknown (or
	// that a run still working on that send may send): they may have gone.
	Unknown int
	// Running: that send is still running (SentPairs.Running).
	Running bool
	// Scheduled: that send is scheduled for At and has not started
	// (SentPairs.Scheduled); Pairs will go then.
	Scheduled bool
	// Operator made that send on a served console ("" otherwise).
	Operator string
}

// Problem reads like "312 of these pairs (same recipient, same text) were
// already accepted by send 20260102-150405-3fa9c1 at 2026-01-02 15:04 (2h ago)",
// its times in loc (the profile's timezone: a server's own zone is not the
// operators'; a scheduled send's time names the zone).
// When some of them have an unknown outcome there: "5 of these pairs (same
// recipient, same text) may already have gone: send … at … (2h ago) left
// their outcome unknown".
func (r Repeat) Problem(now time.Time, loc *time.Location) string {
	if r.Scheduled {
		by := ""
		if r.Operator != "" {
			by = " by " + SanitizeLine(r.Operator)
		}
		return fmt.Sprintf("%s of these pairs (same recipient, same text) are in send %s, scheduled%s for %s (%s)",
			Thousands(int64(r.Pairs)), r.SendID, by, AtText(r.At, loc), DueText(r.At, now))
	}
	when := fmt.Sprintf("at %s (%s ago)", r.At.In(loc).Format("2006-01-02 15:04"), agoText(now.Sub(r.At)))
	if r.Running {
		by := ""
		if r.Operator != "" {
			by = " by " + SanitizeLine(r.Operator)
		}
		return fmt.Sprintf("%s of these pairs (same recipient, same text) are in send %s%s, which is still running (last recorded %s; %s accepted so far)",
			Thousands(int64(r.Pairs)), r.SendID, by, when, Thousands(int64(r.Pairs-r.Unknown)))
	}
	if r.Operator != "" {
		when = fmt.Sprintf("by %s %s", SanitizeLine(r.Operator), when)
	}
	accepted := r.Pairs - r.Unknown
	if r.Unknown == 0 {
		return fmt.Sprintf("%s already accepted by send %s %s", pairsWere(accepted), r.SendID, when)
	}
	unknown := fmt.Sprintf("%s of these pairs (same recipient, same text) may already have gone: send %s %s left their outcome unknown",
		Thousands(int64(r.Unknown)), r.SendID, when)
	if accepted == 0 {
		return unknown
	}
	return fmt.Sprintf("%s; %s", unknown, strings.Replace(pairsWere(accepted), " of these pairs (same recipient, same text)", " more", 1)+" accepted")
}

// pairsWere is "3 of these pairs (same recipient, same text) were".
func pairsWere(n int) string {
	if n == 1 {
		return "1 of these pairs (same recipient, same text) was"
	}
	return fmt.Sprintf("%s of these pairs (same recipient, same text) were", Thousands(int64(n)))
}

func agoText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "moments"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
}

// FindRepeats compares a plan with earlier sends' accepted pairs (those
// accepted at or after since) and returns, newest first, each send that
// repeats any of the plan's pairs.
func FindRepeats(p *SendPlan, history []SentPairs, since time.Time) []Repeat {
	if len(p.Items) == 0 || len(history) == 0 {
		return nil
	}
	plan := make(map[uint64]int32, len(p.Items))
	for i := range p.Items {
		it := &p.Items[i]
		if it.Recipient == "" || it.OptedOut {
			continue // an opted-out item is never sent: it repeats nothing
		}
		k := PairKey(it.Recipient, it.Message)
		if _, dup := plan[k]; !dup {
			plan[k] = int32(i)
		}
	}
	from := since.Unix()
	mark := make([]int32, len(p.Items)) // the send (numbered from 1) that last counted an item
	var out []Repeat
	for n, h := range history {
		var r *Repeat
		latest := int64(0)
		for j, k := range h.Keys {
			i, ok := plan[k]
			if !ok || h.At[j] < from {
				continue
			}
			latest = max(latest, h.At[j])
			if mark[i] == int32(n+1) {
				continue // the same pair twice in one send counts once
			}
			mark[i] = int32(n + 1)
			if r == nil {
				out = append(out, Repeat{SendID: h.SendID, Running: h.Running, Scheduled: h.Scheduled})
				r = &out[len(out)-1]
			}
			r.Items = append(r.Items, int(i))
			if h.maybe(j) {
				r.Unknown++
			}
		}
		if r != nil {
			r.Pairs = len(r.Items)
			r.At = time.Unix(latest, 0)
			slices.Sort(r.Items)
		}
	}
	slices.SortStableFunc(out, func(a, b Repeat) int { return b.At.Compare(a.At) })
	return out
}

// PairKey is the digest of a pair: the recipient (09… and +989… spellings of
// one number give the same key) and the exact text, by 64-bit FNV-1a.
func PairKey(recipient, message string) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	if len(recipient) == 11 && recipient[0] == '0' && recipient[1] == '9' {
		for _, c := range []byte("+98") {
			h = (h ^ uint64(c)) * prime
		}
		recipient = recipient[1:]
	}
	for i := 0; i < len(recipient); i++ {
		h = (h ^ uint64(recipient[i])) * prime
	}
	h *= prime // a separator (a zero byte: h ^ 0 is h) no recipient holds
	for i := 0; i < len(message); i++ {
		h = (h ^ uint64(message[i])) * prime
	}
	return h
}

// PairsOf is what a send accepted or may have sent: accepted pairs, pairs
// of unknown outcome (or in flight), and, while a run works on the send
// (running), the pairs it has not sent yet. A scheduled send that has not
// started will send every pair it has not left out, at its time, without
// another word from an operator: they count as may-go from that time, so
// that the same file scheduled twice, or sent now while it waits, is
// refused as a repeat naming the scheduled send.
func PairsOf(id string, st *JournalState, running bool) SentPairs {
	sp := SentPairs{SendID: id}
	if st.Waiting() && !running { // running: a runner is starting it right now
		sp.Scheduled = true
		for _, it := range st.Items {
			if it.State == StateQueued {
				sp.AddMaybe(it.Recipient, it.Message, st.Plan.ScheduledFor)
			}
		}
		return sp
	}
	for _, it := range st.Items {
		at := it.At
		if at.IsZero() {
			at = st.Updated
		}
		switch {
		case it.State == StateAccepted:
			sp.Add(it.Recipient, it.Message, at)
		case it.State == StateUnknown, it.State == StateSending, running && it.State == StateQueued:
			sp.AddMaybe(it.Recipient, it.Message, at)
		}
	}
	return sp
}
