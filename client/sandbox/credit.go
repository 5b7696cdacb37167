package sandbox

import (
	"fmt"
	"net/http"

	"github.com/smsdesk/smsdesk/model"
)

// DefaultCredit is the SMS parts a fresh sandbox account can send when
// Options.Credit does not say.
const DefaultCredit = 1_000_000

// RialPerPart is what the sandbox charges for one SMS part (any encoding), so
// that /account/credit can answer a rial figure too.
const RialPerPart = 1000

// creditJSON is the answer of GET /account/credit.
type creditJSON struct {
	Rial     int64 `json:"rial"`
	SMSCount int64 `json:"sms_count"`
}

// accountCredit: GET /account/credit → {"rial","sms_count"}; 404 when the
// sandbox was started with NoCreditEndpoint.
func (s *Server) accountCredit(w http.ResponseWriter, _ *http.Request, _ []string) {
	if s.opts.NoCreditEndpoint {
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint: /account/credit", nil)
		return
	}
	s.mu.Lock()
	parts := s.state.credit()
	s.mu.Unlock()
	writeData(w, http.StatusOK, creditJSON{Rial: parts * RialPerPart, SMSCount: parts}, nil)
}

// credit is the parts left (guarded by Server.mu).
func (st *state) credit() int64 {
	if st.Credit == nil {
		return DefaultCredit
	}
	return *st.Credit
}

// charge takes parts from the credit, or reports (false) that it is short:
// then nothing is taken (guarded by Server.mu).
func (st *state) charge(parts int64) bool {
	left := st.credit()
	if parts > left {
		return false
	}
	left -= parts
	st.Credit = &left
	return true
}

// insufficientCredit answers 402 insufficient_credit: the whole request is
// refused and nothing is sent.
func insufficientCredit(w http.ResponseWriter, need, have int64) {
	writeError(w, http.StatusPaymentRequired, "insufficient_credit",
		fmt.Sprintf("insufficient credit: the request needs %d SMS parts, the account has %d; top up and send again", need, have), nil)
}

// messageParts is what one accepted message costs, in SMS parts.
func messageParts(text string) int64 { return int64(model.Parts(text).Parts) }

// SetCredit sets the SMS parts the account can still send (a top-up, in tests
// and demos).
func (s *Server) SetCredit(parts int64) {
	s.mu.Lock()
	s.state.Credit = &parts
	s.mu.Unlock()
	s.changed()
}

// Credit returns the SMS parts the account can still send.
func (s *Server) Credit() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state.credit()
}
