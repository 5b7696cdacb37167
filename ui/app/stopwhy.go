package app

import "regexp"

// refusalCode finds the status and code in a refusal as the journal keeps it
// ("POST /sms/send-pair: 402 insufficient_credit: …", client.APIError's
// text): "402 insufficient_credit".
var refusalCode = regexp.MustCompile(`^[A-Z]+ \S+: (\d{3})(?: ([A-Za-z0-9_.-]+):)?`)

// StopWhy says once why a send stopped at a refusal that would repeat
// (stopped is the refusal as journaled, cause its kind). For a refusal whose
// meaning is known (credit, the key, the sender line) it says so in
// smsdesk's words with the service's status and code, and leaves out the
// service's own words: those may say what to do as well ("…; top up and
// send again"), and the faces say that once, after this (issue 40: "top up
// and send again); top up the account, then R sends the rest"). The
// journal keeps them whole (history show --json). Any other refusal is
// named by the service's words.
func StopWhy(stopped string, cause StopCause) string {
	what := map[StopCause]string{
		StopCredit: "the account has run out of credit",
		StopKey:    "the service refused the API key",
		StopSender: "the service refused the sender line for this key",
	}[cause]
	m := refusalCode.FindStringSubmatch(stopped)
	switch {
	case what == "":
		return "the service refused the send (" + stopped + ")"
	case m == nil: // not an answer's text: say it as it is
		return what + " (" + stopped + ")"
	}
	if m[2] != "" {
		return what + " (" + m[1] + " " + m[2] + ")"
	}
	return what + " (" + m[1] + ")"
}
