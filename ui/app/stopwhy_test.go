package app

import "testing"

// TestStopWhySaysItOnce (issue 40): a send stopped by a refusal that would
// repeat said the service's advice and then its own ("…; top up and send
// again); top up the account, then R sends the rest"). The refusal is said
// in smsdesk's words with the status and code, never the service's advice.
func TestStopWhySaysItOnce(t *testing.T) {
	t.Parallel()
	credit := "POST /sms/send-pair: 402 insufficient_credit: insufficient credit: the request needs 2 SMS parts, the account has 0; top up and send again"
	for _, c := range []struct {
		name, stopped string
		cause         StopCause
		want          string
	}{
		{"credit", credit, StopCredit, "the account has run out of credit (402 insufficient_credit)"},
		{"key", "POST /sms/send-pair: 401 unauthorized: Unauthenticated.", StopKey, "the service refused the API key (401 unauthorized)"},
		{"sender", "POST /sms/send-pair: 403 sender_not_allowed: line 3000505 is not yours; use another", StopSender,
			"the service refused the sender line for this key (403 sender_not_allowed)"},
		{"status alone", "POST /sms/send-pair: 402 Payment Required", StopCredit, "the account has run out of credit (402)"},
		{"account: the service's words", "POST /sms/send-pair: 403 account_suspended: suspended", StopAccount,
			"the service refused the send (POST /sms/send-pair: 403 account_suspended: suspended)"},
		{"not an answer's text", "credit gone", StopCredit, "the account has run out of credit (credit gone)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := StopWhy(c.stopped, c.cause); got != c.want {
				t.Errorf("StopWhy = %q, want %q", got, c.want)
			}
		})
	}
}
