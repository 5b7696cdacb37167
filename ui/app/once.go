package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// Once-only sends (SendRequest.OnceID): a send with a given id is made at
// most once per account of the service, by any profile and any operator.
// The ids live in the account's state (config.OnceFile); a new send's id is
// looked up when it is prepared, again under the start lock, and recorded
// there with the new journal, so that two runs with one id send once.

// errOnceSignedIn: the account, which keeps the ids, is known from the key.
var errOnceSignedIn = errors.New("a once-only send needs the account's key to find its ids: sign in first; nothing was sent")

// onceConflict is the refusal for p's once-only id when a send was made
// with it already; nil when the id is new (or p has none).
func (s *Session) onceConflict(ctx context.Context, p *PendingSend) (*Refusal, error) {
	if p.OnceID == "" {
		return nil, nil
	}
	if s.Client == nil {
		return nil, errOnceSignedIn
	}
	o, found, err := config.FindOnce(ctx, s.Paths, s.Client.AccountID(), p.OnceID)
	if err != nil {
		return nil, notSent(fmt.Sprintf("looking up once-only id %q", model.SanitizeLine(p.OnceID)), err)
	}
	if !found {
		return nil, nil
	}
	c := &OnceConflict{ID: model.SanitizeLine(o.ID), SendID: model.SanitizeLine(o.SendID), SamePairs: o.Pairs == model.PairsDigest(p.Plan),
		Running: config.JournalInUse(ctx, s.Paths, o.SendID), Count: o.Count, Source: model.SanitizeLine(o.Source), Time: o.Time,
		Profile: model.SanitizeLine(o.Profile), Operator: model.SanitizeLine(o.Operator)}
	r := &Refusal{Rule: RuleOnce, Once: c, SendID: c.SendID}
	when := c.Time.In(s.Profile.Zone()).Format("2006-01-02 15:04") // the profile's zone, as every time for people
	switch {
	case !c.SamePairs:
		r.Reason = fmt.Sprintf("once-only id %q was used by send %s (%d pairs from %s, %s) for other pairs than these; nothing was sent",
			c.ID, c.SendID, c.Count, c.Source, when)
	case c.Running:
		r.Reason = fmt.Sprintf("already sending as send %s (once-only id %q, begun %s), which is still running; nothing more was sent", c.SendID, c.ID, when)
	default:
		r.Reason = fmt.Sprintf("already sent as send %s (once-only id %q, %s); nothing more was sent", c.SendID, c.ID, when)
	}
	return r, nil
}

// recordOnce records p's once-only id with the send now starting (under
// the start lock); the func it returns takes the record back, for a send
// that then could not start.
func (s *Session) recordOnce(ctx context.Context, p *PendingSend, sendID string) (func(), error) {
	if p.OnceID == "" {
		return func() {}, nil
	}
	account := s.Client.AccountID()
	o := config.OnceSend{ID: p.OnceID, SendID: sendID, Pairs: model.PairsDigest(p.Plan), Count: len(p.Plan.Items),
		Source: p.Source.Name, Time: s.now().UTC(), Profile: s.Profile.Name}
	if op := s.operatorRecord(); op != nil {
		o.Operator = op.Name
	}
	if err := config.RecordOnce(ctx, s.Paths, account, o); err != nil {
		return nil, notSent(fmt.Sprintf("recording once-only id %q", model.SanitizeLine(p.OnceID)), err)
	}
	return func() {
		c, done := afterStop(ctx)
		defer done()
		_ = config.ForgetOnce(c, s.Paths, account, p.OnceID, sendID)
	}, nil
}
