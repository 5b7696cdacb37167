package console

import (
	"context"
	"fmt"
	"time"
)

// Background work. Every piece of work the console starts off the UI
// goroutine and that talks to the service — a contacts load, an import (its
// check and its rows), a send with its delivery polls, a key check, adding
// or deleting a contact, creating or tracking a group — is
// registered here by the pane that owns it: an id, what it is, a context of
// its own (a child of the console's) and when it began. Its messages carry
// the id, so a late answer is told from a current one. The owner ends it when
// its last message has arrived; the owner cancels it when it is superseded
// (another group opened, esc on an import, a send cancelled); the console's
// end cancels everything left. The message log (L) lists what is running.
//
// The list is touched only from Update (the program's goroutine): Cmds get
// a context and an id, never the list.

// workKind says what a piece of work is.
type workKind string

const (
	workLoad     workKind = "contacts load"
	workImport   workKind = "import"
	workSend     workKind = "send"
	workKeyCheck workKind = "key check"
	workAdd      workKind = "add contact"
	workDelete   workKind = "delete contact"
	workCreate   workKind = "create group"
	workTrack    workKind = "track group"
)

// work is one piece of background work in flight.
type work struct {
	id       int
	kind     workKind
	label    string
	began    time.Time
	stopping bool // cancelled; its last message is still to come
	cancel   context.CancelCauseFunc
}

// workList holds the work in flight, oldest first.
type workList struct {
	last int
	live []*work
}

// start registers a piece of work under a context of its own, derived from
// parent, and returns that context and the work's id (never 0).
func (l *workList) start(parent context.Context, kind workKind, label string, now time.Time) (context.Context, int) {
	ctx, cancel := context.WithCancelCause(parent)
	l.last++
	l.live = append(l.live, &work{id: l.last, kind: kind, label: label, began: now, cancel: cancel})
	return ctx, l.last
}

// rename gives work id a new label (a send learns its id once journaled).
func (l *workList) rename(id int, label string) {
	if w := l.find(id); w != nil {
		w.label = label
	}
}

// find returns the work with id, or nil.
func (l *workList) find(id int) *work {
	for _, w := range l.live {
		if w.id == id {
			return w
		}
	}
	return nil
}

// stop cancels work id's context with why (context.Cause tells the work;
// nil: context.Canceled) and keeps it listed until it ends: a send finishes
// its chunk in flight, an import its row in flight.
func (l *workList) stop(id int, why error) {
	if w := l.find(id); w != nil {
		w.cancel(why)
		w.stopping = true
	}
}

// end forgets work id and releases its context. Ending work that has ended
// already (or id 0) does nothing.
func (l *workList) end(id int) {
	for i, w := range l.live {
		if w.id == id {
			w.cancel(nil)
			l.live = append(l.live[:i], l.live[i+1:]...)
			return
		}
	}
}

// has reports whether work of one of kinds is in flight.
func (l *workList) has(kinds ...workKind) bool {
	for _, w := range l.live {
		for _, k := range kinds {
			if w.kind == k {
				return true
			}
		}
	}
	return false
}

// endAll cancels and forgets every piece of work (the console is ending).
func (l *workList) endAll() {
	for _, w := range l.live {
		w.cancel(nil)
	}
	l.live = nil
}

// lines describes the work in flight, one line each, for the message log.
func (l *workList) lines(now time.Time) []string {
	var out []string
	for _, w := range l.live {
		s := fmt.Sprintf("#%d %s: %s · %s", w.id, w.kind, w.label, now.Sub(w.began).Round(time.Second))
		if w.stopping {
			s += " · stopping"
		}
		out = append(out, s)
	}
	return out
}

// startWork registers a piece of work under the console's context.
func (c *common) startWork(kind workKind, label string) (context.Context, int) {
	return c.work.start(c.ctx, kind, label, c.now())
}
