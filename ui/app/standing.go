package app

// An operator's standing is read again at every action: removed from the
// operators file, or given another role, while their session is open, the
// next action of that session is decided by the file as it is then, not by
// what it said at sign-in (smsdesk serve also closes a removed operator's
// session within a second; this holds in between, and for every face).

import (
	"fmt"
	"sync"

	"github.com/smsdesk/smsdesk/model"
)

// RuleOperator names a refusal for a session whose operator is no longer
// one: removed from the operators file, or the file cannot be trusted now.
const RuleOperator Rule = "operator"

// standing is a session's operator as last read from the operators file.
type standing struct {
	mu      sync.Mutex
	read    bool
	current model.Operator
	gone    error // a RuleOperator refusal once they are no longer an operator
}

// Recheck reads the operators file as it is now (Session.Operators) for
// the session's operator: their entry, with its role, or a RuleOperator
// refusal (removed, or the file cannot be read or trusted). A session
// with no file to read keeps the operator it was opened with; one with no
// operator (this machine's own terminal) has none.
func (s *Session) Recheck() (model.Operator, error) {
	if s.Operator == nil {
		return model.Operator{}, nil
	}
	op, gone := *s.Operator, error(nil)
	if s.Operators != nil {
		op, gone = s.lookUp(*s.Operator)
	}
	st := &s.root().standing
	st.mu.Lock()
	defer st.mu.Unlock()
	if gone != nil && st.read {
		op = st.current // the last role they had
	}
	st.read, st.current, st.gone = true, op, gone
	return op, gone
}

// lookUp finds who in the operators file signed in as at: the same name
// and key (a new key under the same name is someone else's sign-in).
func (s *Session) lookUp(at model.Operator) (model.Operator, error) {
	name := model.SanitizeLine(at.Name)
	list, err := s.Operators()
	if err != nil {
		return at, &Refusal{Rule: RuleOperator, Operator: name,
			Reason: fmt.Sprintf("the operators file of this server cannot be trusted now (%s); nothing was done", model.SanitizeLine(err.Error()))}
	}
	for _, e := range list {
		if e.Name == at.Name && e.Fingerprint() == at.Fingerprint {
			return e.Operator(), nil
		}
	}
	return at, &Refusal{Rule: RuleOperator, Operator: name,
		Reason: fmt.Sprintf("%s is no longer an operator of this server; nothing was done", name)}
}

// Current is the session's operator as last read (Recheck, or the last
// action's check), without reading the file: who the status bar names.
// Nil at this machine's own terminal.
func (s *Session) Current() *model.Operator {
	if s.Operator == nil {
		return nil
	}
	st := &s.root().standing
	st.mu.Lock()
	defer st.mu.Unlock()
	op := *s.Operator
	if st.read {
		op = st.current
	}
	return &op
}

// May says whether the operator may do a as far as the file last read
// said (no read: for what a face offers, such as a footer's keys). The
// action itself is decided by Allow.
func (s *Session) May(a Action) bool {
	if s.Operator == nil {
		return true
	}
	st := &s.root().standing
	st.mu.Lock()
	gone := st.gone
	st.mu.Unlock()
	return gone == nil && s.Current().Role.Allows(a.Needs())
}
