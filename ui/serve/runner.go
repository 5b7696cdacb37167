package serve

import (
	"context"
	"time"

	"github.com/smsdesk/smsdesk/ui/app"
)

// The scheduler in the server (issue 30): while it serves, a server starts
// the due sends of the profile it serves, scheduled ones at their time and
// held ones when quiet hours end, as smsdesk scheduler does. Its sends are
// the engine's (Options.Runner's session carries the tracker), so that
// Shutdown stops them after their chunk in flight and waits for them like
// the operators'.

// DefaultRunnerPoll is how often a server looks for due sends besides at
// each one's time and within a second of a change to the ledger (its Watch).
const DefaultRunnerPoll = app.DefaultPoll

// startRunner starts Options.Runner's loop once, for the server's life.
func (s *Server) startRunner() {
	r := s.opts.Runner
	if r == nil {
		return
	}
	s.runnerOnce.Do(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.halted {
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		s.stopRunner, s.runnerDone = cancel, make(chan struct{})
		report := r.Report
		r.Report = func(ev app.RunnerEvent) {
			if ev.Kind == app.RunnerWaiting {
				s.log.Debug("scheduler: "+ev.Text(), "runner", r.Kind)
			} else {
				s.log.Info("scheduler: "+ev.Text(), "send", ev.ID, "runner", r.Kind)
			}
			if report != nil {
				report(ev)
			}
		}
		poll := s.opts.RunnerPoll
		if poll <= 0 {
			poll = DefaultRunnerPoll
		}
		done := s.runnerDone
		go func() {
			defer close(done)
			s.runLoop(ctx, r, poll)
		}()
	})
}

// runLoop runs the runner's loop until ctx ends. A write to the ledger
// that failed stops the loop (and the send it stopped): the server says so
// in its log and starts the loop again after poll, for the ledger may take
// writes again (a database restarted, a disk freed); what the stopped send
// left waits for an operator's resume. A damaged ledger stops it too,
// having started nothing: logged, and found again at each look until the
// ledger is restored.
func (s *Server) runLoop(ctx context.Context, r *app.Runner, poll time.Duration) {
	for {
		err := r.Loop(ctx, poll)
		if err == nil || ctx.Err() != nil {
			return
		}
		s.log.Error("scheduler stopped: "+err.Error()+"; it looks again in "+poll.String(), "runner", r.Kind)
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// haltRunner stops the loop (its send stops after the chunk in flight) and
// returns a channel closed when the loop has ended; nil when none runs.
func (s *Server) haltRunner() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopRunner == nil {
		return nil
	}
	s.stopRunner()
	return s.runnerDone
}
