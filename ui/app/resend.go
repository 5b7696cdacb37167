package app

// Resend the failed (issue 42 §3): a new send of the messages of an
// earlier one whose delivery failed (and those the service rejected after
// taking them, only when asked), from the same line, linked to it
// (model.JournalPlan.ResendOf). It is a source of a SendRequest like a
// file or a group: PrepareSend plans it and applies every rule again (the
// suffix as it is now, opt-outs since, quiet hours, credit, the plan).
//
// The repeat guard: the earlier send accepted those pairs, so the guard
// would call them repeats of it. Their delivery failed: nobody got them,
// and sending them again is the point. So the pairs taken are excused
// against that one send, one for one (a pair it also had delivered stays
// a repeat). Every other send that took them is a repeat as ever, and a
// first resend is one too: a second resend of the same send, while the
// first's messages may have gone, is refused (asked, on the console)
// naming the first. Its failures are resent from it, the send whose
// deliveries tell how they went.

import (
	"context"
	"fmt"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// ResendFailed asks for the messages of an earlier send whose delivery
// failed to go again (send-pair --resend-failed ID, the console's history
// detail).
type ResendFailed struct {
	// ID is the earlier send.
	ID string
	// IncludeRejected takes the messages the service rejected after
	// accepting them (a content filter, an invalid number) as well.
	IncludeRejected bool
}

// ResendCounts is what a resend takes of the earlier send, and what it
// leaves, counted over that send's items.
type ResendCounts struct {
	// Of is the earlier send.
	Of string
	// Failed and Rejected are the messages taken: delivery failed, and
	// rejected (only with IncludeRejected).
	Failed, Rejected int
	// Left out: rejected (not asked), delivered, no final state yet
	// (pending or sent), no report, and items the service never accepted
	// (not sent, refused, opted out, or of unknown outcome: a resume's).
	RejectedLeft, Delivered, Pending, NoReport, NotAccepted int
}

// Taken is how many messages the resend takes.
func (c ResendCounts) Taken() int { return c.Failed + c.Rejected }

// resendTaken is what planning a resend found: the counts, and the pairs
// taken as the earlier sends journaled them (PairKey), which the repeat
// guard excuses against those sends (excused: by send id). The earlier
// send's failed pairs are excused against it; when it is a resend itself,
// those of them that failed in the send it resent too, and so on up.
type resendTaken struct {
	counts  ResendCounts
	keys    []uint64
	excused map[string][]uint64
}

// resendChain is how many resends up a resend's pairs are excused: a
// chain longer than this within the repeat window weighs its older sends
// as repeats (safe: asked, never sent unasked).
const resendChain = 8

// ResendSource names the rows of a resend: "resend of ID", a row the
// earlier send's item ("resend of ID item 4").
func ResendSource(id string) Source {
	return Source{Name: "resend of " + model.SanitizeLine(id), Row: "item"}
}

// Resent is what a resend took of the earlier send (nil for another
// send).
func (p *PendingSend) Resent() *ResendCounts {
	if p.taken == nil {
		return nil
	}
	c := p.taken.counts
	return &c
}

// now refuses a resend with a time (nil r: not a resend): its failures
// are read, checked and sent now, and a runner's start at the time would
// weigh the repeats without the resend's excuse.
func (r *ResendFailed) now(req SendRequest) error {
	if r == nil || req.At.IsZero() && req.AtText == "" {
		return nil
	}
	return &Refusal{Rule: RulePlan, SendID: model.SanitizeLine(r.ID),
		Reason: "a resend of failed messages goes now, checked now: it cannot be scheduled; nothing was sent"}
}

// planResend plans req's resend: the earlier send's failed messages (and
// rejected, when asked), from its line, with the suffix as the profile
// has it now (unless req.NoSuffix). Nothing to take is a RuleNothing
// refusal.
func (s *Session) planResend(ctx context.Context, req *SendRequest) error {
	id := req.Resend.ID
	e, err := s.ReadSend(ctx, id)
	if err != nil {
		return err
	}
	st := e.State
	if err := s.mayResend(id, st, req.Sender); err != nil {
		return err
	}
	rows, err := config.SendDeliveries(ctx, s.Paths, id)
	if err != nil {
		return notSent("reading the delivery of send "+model.SanitizeLine(id), err)
	}
	t, pairs := takeFailed(st, rows, req.Resend.IncludeRejected)
	t.counts.Of = model.SanitizeLine(id)
	if t.counts.Taken() == 0 {
		return nothingToResend(t.counts)
	}
	t.excused = map[string][]uint64{t.counts.Of: t.keys}
	if err := s.excuseChain(ctx, t, st.Plan.ResendOf, req.Resend.IncludeRejected); err != nil {
		return err
	}
	req.Plan, req.Source, req.taken = s.PlanWith(st.Plan.Sender, pairs, req.NoSuffix), ResendSource(id), t
	return nil
}

// excuseChain excuses t's pairs against the sends the resent send resent
// in turn (from parent up), where they failed too: a pair that failed in
// X, then in its resend, is no repeat of either.
func (s *Session) excuseChain(ctx context.Context, t *resendTaken, parent string, rejected bool) error {
	for n := 0; parent != "" && n < resendChain; n++ {
		if _, seen := t.excused[parent]; seen {
			return nil // a loop: each send once
		}
		e, err := s.ReadSend(ctx, parent)
		if err != nil {
			return nil // gone or unreadable: its pairs stay repeats, which is safe
		}
		rows, err := config.SendDeliveries(ctx, s.Paths, parent)
		if err != nil {
			return notSent("reading the delivery of send "+model.SanitizeLine(parent), err)
		}
		failed, _ := takeFailed(e.State, rows, rejected)
		t.excused[parent] = onlyKeys(failed.keys, t.keys)
		parent = e.State.Plan.ResendOf
	}
	return nil
}

// onlyKeys are the keys of have that want has, as many times as want
// has them.
func onlyKeys(have, want []uint64) []uint64 {
	left := make(map[uint64]int, len(want))
	for _, k := range want {
		left[k]++
	}
	var out []uint64
	for _, k := range have {
		if left[k] > 0 {
			left[k]--
			out = append(out, k)
		}
	}
	return out
}

// mayResend is the profile and base-URL rule of a resend (its deliveries
// and its opt-outs are that account's), and its line: the send's own.
func (s *Session) mayResend(id string, st *model.JournalState, sender string) error {
	id = model.SanitizeLine(id)
	if p := st.Plan.Profile; p != "" && p != s.Profile.Name {
		return &Refusal{Rule: RuleProfile, SendID: id, Profile: model.SanitizeLine(p),
			Reason: fmt.Sprintf("send %s was made with profile %q, not %q: resend its failures under profile %s; nothing was sent", id, model.SanitizeLine(p), s.Profile.Name, model.SanitizeLine(p))}
	}
	if b := st.Plan.BaseURL; b != "" && b != s.Profile.BaseURL {
		return &Refusal{Rule: RuleBaseURL, SendID: id, BaseURL: model.SanitizeLine(b),
			Reason: fmt.Sprintf("send %s went to %s, but this profile uses %s: resend its failures where it went; nothing was sent", id, model.SanitizeLine(b), model.SanitizeLine(s.Profile.BaseURL))}
	}
	if sender != "" && sender != st.Plan.Sender {
		return &Refusal{Rule: RulePlan, SendID: id,
			Reason: fmt.Sprintf("a resend goes from the send's own line, %s, not %s; nothing was sent", model.SanitizeLine(st.Plan.Sender), model.SanitizeLine(sender))}
	}
	return nil
}

// takeFailed picks st's items whose delivery (rows) failed, and rejected
// when asked, as pairs to plan (the message without the suffix the send
// gave it), counting what it leaves.
func takeFailed(st *model.JournalState, rows []config.Delivery, rejected bool) (*resendTaken, []model.PairRow) {
	byIndex := make(map[int]model.DeliveryState, len(rows))
	for _, d := range rows {
		byIndex[d.Index] = d.State
	}
	t := &resendTaken{}
	var pairs []model.PairRow
	for _, it := range st.Items {
		d, ok := byIndex[it.Index]
		if it.State != model.StateAccepted || !ok {
			t.counts.NotAccepted++
			continue
		}
		if !t.counts.count(d, rejected) {
			continue
		}
		t.keys = append(t.keys, model.PairKey(it.Recipient, it.Message))
		pairs = append(pairs, model.PairRow{Line: it.Index + 1, Recipient: it.Recipient, Message: withoutSuffix(it.Message, st.Plan.Suffix)})
	}
	return t, pairs
}

// count counts one accepted message by its delivery state; true when the
// resend takes it.
func (c *ResendCounts) count(d model.DeliveryState, rejected bool) bool {
	switch d {
	case model.DeliveryFailed:
		c.Failed++
		return true
	case model.DeliveryRejected:
		if rejected {
			c.Rejected++
			return true
		}
		c.RejectedLeft++
	case model.DeliveryDelivered:
		c.Delivered++
	case model.DeliveryNoReport:
		c.NoReport++
	default:
		c.Pending++
	}
	return false
}

// nothingToResend refuses a resend that would take nothing, saying what
// the send's messages did.
func nothingToResend(c ResendCounts) *Refusal {
	r := &Refusal{Rule: RuleNothing, SendID: c.Of,
		Reason: fmt.Sprintf("nothing to resend: no message of send %s failed delivery (%s); nothing was sent", c.Of, c.LeftText())}
	return r
}

// LeftText says what a resend leaves of the earlier send: "7 delivered,
// 2 pending, 1 rejected (not asked)".
func (c ResendCounts) LeftText() string {
	out := ""
	add := func(n int, what string) {
		if n == 0 {
			return
		}
		if out != "" {
			out += ", "
		}
		out += fmt.Sprintf("%d %s", n, what)
	}
	add(c.Delivered, "delivered")
	add(c.Pending, "with no final state yet")
	add(c.NoReport, "with no report")
	add(c.RejectedLeft, "rejected (not asked)")
	add(c.NotAccepted, "never accepted")
	if out == "" {
		return "none left out"
	}
	return out
}

// excuse is the recent sends the repeat guard weighs with the pairs t
// takes excused against the sends they failed in, one for one: those
// sends stay in the list (the look as a send starts takes a send not in
// it for one begun meanwhile), without those pairs.
func (t *resendTaken) excuse(hist []model.SentPairs) []model.SentPairs {
	if t == nil {
		return hist
	}
	out := make([]model.SentPairs, len(hist))
	for i, h := range hist {
		if keys, ok := t.excused[h.SendID]; ok {
			h = withoutPairs(h, keys)
		}
		out[i] = h
	}
	return out
}

// withoutPairs is h without one accepted pair for each of keys.
func withoutPairs(h model.SentPairs, keys []uint64) model.SentPairs {
	drop := make(map[uint64]int, len(keys))
	for _, k := range keys {
		drop[k]++
	}
	out := model.SentPairs{SendID: h.SendID, Running: h.Running, Scheduled: h.Scheduled}
	for j, k := range h.Keys {
		maybe := h.Maybe != nil && h.Maybe[j]
		if !maybe && drop[k] > 0 {
			drop[k]--
			continue
		}
		out.Keys, out.At = append(out.Keys, k), append(out.At, h.At[j])
		if h.Maybe != nil {
			out.Maybe = append(out.Maybe, maybe)
		}
	}
	return out
}

// noteResentAlready adds to a resend's repeat refusal which of the sends
// it repeats are resends of the same send: the failures were resent
// already, and what failed there is resent from that one.
func (s *Session) noteResentAlready(ctx context.Context, p *PendingSend) {
	if p.taken == nil || p.Refusal == nil || p.Refusal.Rule != RuleRepeat {
		return
	}
	for _, r := range p.Verdict.Repeats {
		e, err := s.ReadSend(ctx, r.SendID)
		if err != nil || e.State.Plan.ResendOf != p.taken.counts.Of {
			continue
		}
		p.Refusal.Resent = model.SanitizeLine(r.SendID)
		p.Refusal.Details = append(p.Refusal.Details, fmt.Sprintf("send %s is a resend of send %s's failures already: what failed there is resent from it",
			model.SanitizeLine(r.SendID), p.taken.counts.Of))
	}
}
