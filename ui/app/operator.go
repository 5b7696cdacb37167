package app

// Operators of a served console (smsdesk serve): each session knows who is
// signed in and with which role; every action is checked here, before any
// request, so that no face can forget a check.

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// Action is something an operator does that a role may not allow.
type Action string

// The actions a role decides.
const (
	ActionSend          Action = "sending"
	ActionResume        Action = "resuming a send"
	ActionAddContact    Action = "adding a contact"
	ActionImport        Action = "importing contacts"
	ActionCreateGroup   Action = "creating a group"
	ActionDeleteContact Action = "deleting a contact"
	// Tracking and untracking change the list of known groups every
	// operator of a server (and the host's CLI) sees.
	ActionTrackGroup   Action = "tracking a group"
	ActionUntrackGroup Action = "untracking a group"
	// Exporting writes contacts with their full numbers, or a send's
	// results, to a file on the host (a served console's files directory).
	ActionExport Action = "exporting"
)

// RuleRole names a refusal for an operator whose role does not allow the action.
const RuleRole Rule = "role"

// Needs is the weakest role allowed to do a.
func (a Action) Needs() model.Role {
	switch a {
	case ActionCreateGroup, ActionDeleteContact, ActionAudit, ActionLineKind:
		return model.RoleAdmin
	case ActionSend, ActionResume, ActionAddContact, ActionImport, ActionOptOut, ActionTrackGroup, ActionUntrackGroup, ActionExport:
		return model.RoleSender
	}
	return model.RoleAdmin // an action this list does not know needs the most
}

// Allow says whether the session's operator may do a: nil, or a Refusal
// naming the role it needs (RuleRole) or saying they are no longer an
// operator (RuleOperator). It reads the operators file as it is now
// (Recheck): a role changed or an operator removed while the session is
// open counts from their next action. A session with no operator (this
// machine's own terminal) may do everything.
func (s *Session) Allow(a Action) error {
	if s.Operator == nil {
		return nil
	}
	op, err := s.Recheck()
	if r, ok := err.(*Refusal); ok {
		c := *r
		c.Action = a
		return &c
	}
	if op.Role.Allows(a.Needs()) {
		return nil
	}
	// Short: it is read on a status bar beside who is signed in.
	return &Refusal{Rule: RuleRole, Action: a, Needs: a.Needs(), Operator: model.SanitizeLine(op.Name),
		Reason: fmt.Sprintf("%s needs the %s role (%s is a %s); nothing was done", a, a.Needs(), model.SanitizeLine(op.Name), op.Role)}
}

// audit records what was done (Operator nil at this machine's own
// terminal: smsdesk's commands and its console there).
func (s *Session) audit(ctx context.Context, r config.AuditRecord, err error) {
	r.Time, r.Profile = s.now().UTC(), s.Profile.Name
	r.Operator = s.Current() // their role as last read
	if err != nil {
		r.Error = model.SanitizeLine(err.Error())
	}
	s.appendAudit(ctx, r)
}

// appendAudit writes r to the audit trail; one the ledger does not take is
// said (warn), never dropped: what it records was done all the same.
// What was done before a stop is recorded (config.AfterStop).
func (s *Session) appendAudit(ctx context.Context, r config.AuditRecord) {
	c, done := config.AfterStop(ctx)
	defer done()
	if err := config.AppendAudit(c, s.Paths, r); err != nil {
		s.warn(fmt.Errorf("%s was done, but the audit trail did not take its record: %w", r.Action, err))
	}
}

// warn says err through the face (Warn), else a server's log.
func (s *Session) warn(err error) {
	switch {
	case s.Warn != nil:
		s.Warn(err)
	case s.Tracker != nil && s.Tracker.Log != nil:
		who := "" // this machine's own terminal
		if op := s.Current(); op != nil {
			who = op.Name
		}
		s.Tracker.Log.Warn(err.Error(), "operator", who)
	}
}

// SendTracker is shared by every session of one server process: it knows
// every send its sessions started until it ends, so that the server can
// wait for them before it exits, and logs them. (Two operators' sends of
// the same pairs are kept apart by the repeat guard's look at start,
// PendingSend.Start, as two processes' are.)
type SendTracker struct {
	// Log gets a line when a send starts and when it ends, with its
	// operator and key fingerprint (never the API key). Nil: none.
	Log *slog.Logger

	// The sends running, and a channel closed at each end (a
	// sync.WaitGroup may not be Added to at zero while it is Waited on: a
	// server waits as its operators may still start sends).
	mu      sync.Mutex
	running int
	ended   chan struct{}
}

// add counts a send in.
func (g *SendTracker) add() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running++
}

// done counts a send out and wakes the waiters.
func (g *SendTracker) done() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running--
	if g.ended != nil {
		close(g.ended)
		g.ended = nil
	}
}

// Wait waits until every send its sessions started has ended (each
// finishes its chunk in flight and journals it once its context ends), or
// ctx ends.
func (g *SendTracker) Wait(ctx context.Context) error {
	for {
		g.mu.Lock()
		if g.running == 0 {
			g.mu.Unlock()
			return nil
		}
		if g.ended == nil {
			g.ended = make(chan struct{})
		}
		ended := g.ended
		g.mu.Unlock()
		select {
		case <-ended:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// track counts a send until it ends (in the session and its tracker) and
// logs it. A run that ended lets its lease go at once (its journal is
// closed before Done is): a face that is gone (an SSH session hung up
// mid-send) never closes it, and a resume from another session, or the
// CLI, was refused as "still running" until the lease lapsed.
func (s *Session) track(x *Send) {
	running := &s.root().running
	running.add()
	g := s.Tracker
	op := s.operatorRecord()
	if g != nil {
		g.add()
		g.log("send started", x, op)
	}
	x.ended = make(chan struct{})
	go func() { // ends with the run
		<-x.run.Done()
		_ = x.Close() // its error is the face's, from its own Close
		close(x.ended)
		running.done()
		if g != nil {
			g.log("send ended", x, op)
			g.done()
		}
	}()
}

func (g *SendTracker) log(msg string, x *Send, op *model.Operator) {
	if g.Log == nil {
		return
	}
	// How it began: a runner's start of a scheduled send replays the
	// journal as a resume does, and was logged resume=true.
	args := []any{"send", x.ID(), "items", len(x.ToSend()), "start", x.Start()}
	if x.runner != "" {
		args = append(args, "runner", x.runner)
	}
	if op != nil {
		args = append(args, "operator", op.Name, "fingerprint", op.Fingerprint)
	}
	if msg == "send ended" {
		var c model.StateCounts
		for _, it := range x.Results() {
			c.Add(it.State, it.Delivery)
		}
		args = append(args, "accepted", c.Accepted, "rejected", c.Rejected, "failed", c.Failed, "unknown", c.Unknown, "not_sent", c.NotSent)
	}
	g.Log.Info(msg, args...)
}

// refused logs a send refused because another send began with its pairs
// while it was being checked.
func (g *SendTracker) refused(op *model.Operator, r *Refusal) {
	if g == nil || g.Log == nil {
		return
	}
	args := []any{"reason", r.Reason}
	if len(r.Details) > 0 {
		args = append(args, "first", r.Details[0])
	}
	if op != nil {
		args = append(args, "operator", op.Name, "fingerprint", op.Fingerprint)
	}
	g.Log.Warn("send refused: another send has these pairs", args...)
}

// Running counts this session's sends that have not ended.
func (s *Session) Running() int {
	g := &s.root().running
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.running
}

// WaitSends waits until every send this session started has ended, its
// journal closed (each finishes its chunk in flight once its context
// ends), or ctx ends. A face that ends waits here, so that nothing of its
// sends is still being written after it has gone.
func (s *Session) WaitSends(ctx context.Context) error { return s.root().running.Wait(ctx) }

// nameOperators fills in who made each repeated send (a served console's
// journals name their operator).
func (s *Session) nameOperators(ctx context.Context, reps []model.Repeat) {
	for i := range reps {
		if st, err := config.ReadJournal(ctx, s.Paths, reps[i].SendID); err == nil && st.Plan.Operator != nil {
			reps[i].Operator = st.Plan.Operator.Name
		}
	}
}

// operatorRecord is the operator as a journal records them (nil locally).
func (s *Session) operatorRecord() *model.Operator {
	if s.Operator == nil {
		return nil
	}
	op := model.Operator{Name: s.Operator.Name, Fingerprint: s.Operator.Fingerprint}
	return &op
}
