package console

import "github.com/smsdesk/smsdesk/ui/app"

// stopReason says why a send stopped, once: a refusal in app.StopWhy's
// words (never the service's advice beside the note's own), smsdesk's own
// stops with what was recorded.
func stopReason(sum *app.Summary) string {
	switch sum.Cause {
	case app.StopUnreachable, app.StopUnknown, app.StopQuiet, app.StopLedger:
		return stopWhy(sum.Cause) + " (" + sum.Stopped + ")"
	}
	return app.StopWhy(sum.Stopped, sum.Cause)
}

// stopWhy is the results' short word for why a send stopped (its status
// line: "stopped: the service refused").
func stopWhy(c app.StopCause) string {
	switch c {
	case app.StopUnreachable:
		return "the service cannot be reached"
	case app.StopUnknown:
		return "outcomes unknown"
	case app.StopQuiet:
		return "held at quiet hours" // not refused: it goes on when they end
	case app.StopLedger:
		return "a write to the ledger failed"
	}
	return "the service refused"
}
