package console

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/app/apptest"
)

// answerOf runs cmd as the program would (a batch's Cmds each) and returns
// the first message of type T it yields.
func answerOf[T tea.Msg](t *testing.T, cmd tea.Cmd) T {
	t.Helper()
	var zero T
	if cmd == nil {
		t.Fatalf("no Cmd: want one answering %T", zero)
	}
	found := make(chan T, 1)
	var run func(c tea.Cmd) bool
	run = func(c tea.Cmd) bool {
		switch msg := c().(type) {
		case T:
			found <- msg
			return true
		case tea.BatchMsg:
			for _, sub := range msg {
				if sub != nil && run(sub) {
					return true
				}
			}
		}
		return false
	}
	if !run(cmd) {
		t.Fatalf("the Cmd answered no %T", zero)
	}
	return <-found
}

// TestSendStartsOffTheUpdateLoop: a confirmed send starts in a Cmd, never
// in Update. With the send-start lock held by another smsdesk, Update
// returns at once: nothing is journaled, the console says a send is
// starting (a second yes is refused), and only the Cmd waits for the lock;
// once it is free the send starts and its results show. Starting it in
// Update (as before) waited there up to five seconds for the lock, then
// refused.
func TestSendStartsOffTheUpdateLoop(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	sess := e.opts.Session
	m := newRoot(t.Context(), e.opts)
	t.Cleanup(m.shutdown)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	plan := sess.Plan(sess.Profile.Sender, []model.PairRow{{Line: 2, Recipient: "09121110001", Message: "hi"}})
	pending, err := sess.PrepareSend(t.Context(), app.SendRequest{Plan: plan, Source: app.TypedSource()})
	if err != nil || pending.Refusal != nil {
		t.Fatal(err, pending.Refusal)
	}
	unlock, err := config.LockSendStart(t.Context(), sess.Paths) // another smsdesk starting its send
	if err != nil {
		t.Fatal(err)
	}
	locked := true
	defer func() {
		if locked {
			unlock()
		}
	}()

	_, cmd := m.Update(startSendMsg{Pending: pending})
	if m.starting == 0 || m.screen == screenResults || m.lastErr != "" {
		t.Fatalf("after Update: starting %d, screen %v, error %q; want the start pending in its Cmd", m.starting, m.screen, m.lastErr)
	}
	if list, err := sess.History(t.Context(), false); err != nil || len(list) != 0 {
		t.Fatalf("Update journaled %d send(s) (%v)", len(list), err)
	}
	if err := m.canSend(); err == nil || !strings.Contains(err.Error(), "a send is starting") {
		t.Errorf("a second send while one starts: %v", err)
	}
	if n := e.srv.RequestsTo("POST", "/sms/send-pair"); n != 0 {
		t.Fatalf("%d send requests before the start's Cmd ran", n)
	}

	unlock()
	locked = false
	started := answerOf[sendStartedMsg](t, cmd)
	if started.Err != nil || started.Run == nil {
		t.Fatalf("the start: %v", started.Err)
	}
	m.Update(started)
	if m.starting != 0 || m.screen != screenResults || m.results.run != started.Run {
		t.Errorf("after the start's answer: starting %d, screen %v; want its results shown", m.starting, m.screen)
	}
	<-started.Run.Done()
	if err := started.Run.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(e.srv.Sent()); n != 1 {
		t.Errorf("the sandbox took %d messages, want 1", n)
	}
}

// TestResumeIsPreparedOffTheUpdateLoop: R on a past send reads its journal
// and the recent sends (app.Session.PrepareResume) in a Cmd: Update asks
// nothing yet, and the question shows when the Cmd's answer arrives. It
// used to be read in Update.
func TestResumeIsPreparedOffTheUpdateLoop(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	sess := e.opts.Session
	apptest.WriteInterrupted(t, sess.Paths, sess.Profile.Name, sess.Profile.BaseURL)
	m := newRoot(t.Context(), e.opts)
	t.Cleanup(m.shutdown)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	entry, err := sess.ReadSend(t.Context(), apptest.PastSendID)
	if err != nil {
		t.Fatal(err)
	}
	m.screen = screenHistory
	m.history.detail = &historyDetail{id: apptest.PastSendID, state: entry.State}

	_, cmd := m.Update(press("R"))
	if m.modal != nil || m.history.detail.err != "" {
		t.Fatalf("Update answered R itself: modal %v, error %q", m.modal, m.history.detail.err)
	}
	prepared := answerOf[resumePreparedMsg](t, cmd)
	if prepared.Err != nil || prepared.Resume == nil || len(prepared.Resume.Todo) != 1 {
		t.Fatalf("prepared: %+v", prepared)
	}
	m.Update(prepared)
	if modalTitle(m) != "Resume send?" {
		t.Errorf("after the answer: modal %q, want the resume's question", modalTitle(m))
	}
}
