package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
)

// Exit codes, as the README's table documents them (a test reads it).
const (
	ExitOK          = 0   // done
	ExitService     = 1   // the service refused or failed something
	ExitUsage       = 2   // usage, input or plan error; nothing was sent
	ExitUnknown     = 3   // the outcome is unknown for some recipients
	ExitAuth        = 4   // the key is missing, refused or revoked
	ExitInterrupted = 130 // stopped by ctrl+c, SIGTERM or a hang-up (128 + SIGINT)
)

// exitCodes are the exit codes with their meaning, as the README's table and
// smsdesk --help say them (a test checks the three agree).
var exitCodes = []struct {
	Code    int
	Meaning string
}{
	{ExitOK, "done"},
	{ExitService, "the service refused or failed something"},
	{ExitUsage, "usage, input or plan error; nothing was sent"},
	{ExitUnknown, "the outcome is unknown for some recipients (see `smsdesk history show ID`)"},
	{ExitAuth, "the key is missing, or the service refused it (401)"},
	{ExitInterrupted, "stopped by ctrl+c, SIGTERM or a hang-up after the chunk or row in flight"},
}

// exitCodesHelp is the exit-code table for --help.
func exitCodesHelp() string {
	var b strings.Builder
	b.WriteString("\n\nExit codes:")
	for _, e := range exitCodes {
		fmt.Fprintf(&b, "\n  %-3d  %s", e.Code, e.Meaning)
	}
	return b.String()
}

// errorCode is one value of error.code under --json, with its exit code.
type errorCode struct {
	Code    string
	Exit    int
	Meaning string
}

// errorCodes are every error.code smsdesk writes, as the README lists them
// (a test checks the two agree).
var errorCodes = []errorCode{
	{"usage", ExitUsage, "a flag, argument or answer is wrong; nothing was done"},
	{"input", ExitUsage, "rows of a file (or --to/--message pairs) cannot be sent or imported; nothing was sent"},
	{"config", ExitUsage, "a config or state file, or a profile setting, does not read"},
	{"repeat", ExitUsage, "pairs an earlier send accepted, or may have sent, within repeat_window"},
	{"credit", ExitUsage, "the plan needs more credit than the account has (a send the service stops for credit exits 1 with this code)"},
	{"wrong_profile", ExitUsage, "a resume under another profile, or against another base URL, than the send's"},
	{"running", ExitUsage, "another run is still working on that send"},
	{"quiet_hours", ExitUsage, "the send would start inside the profile's quiet hours; nothing was sent"},
	{"opted_out", ExitUsage, "every recipient is on the opt-out list; nothing was sent"},
	{"auth", ExitAuth, "the key is missing, or the service refused it (401)"},
	{"service", ExitService, "the service refused or failed something (service_code says what)"},
	{"unknown_outcome", ExitUnknown, "some recipients may or may not have their message"},
	{"interrupted", ExitInterrupted, "stopped by a signal after the chunk or row in flight"},
	{"held", ExitService, "quiet hours began during the send: the rest is held, not sent, resumable once they end"},
	{"check", ExitService, "a check of smsdesk doctor fails (stdout says which, with the fix)"},
	{"ledger", ExitUsage, "the ledger has gone, is damaged, is another than config.toml records, or was written by a newer smsdesk; nothing was sent"},
	{"ledger_busy", ExitService, "the ledger stayed held by another session (a lock, a long transaction) past smsdesk's wait for it; the message says what held it"},
}

// ExitError carries the exit code, error.code and hint for an error.
type ExitError struct {
	Code    int
	Kind    string // error.code under --json; "" derives it from Code
	Err     error
	Hint    string   // what to do next, apart from the message
	Details []string // row by row (refused rows, problems), before the message
	// SendID is the send the refusal is about (error.send_id under --json):
	// the earlier send a repeat conflicts with, the send a resume would
	// continue, the send made with a once-only id.
	SendID string
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// usageError marks err as a usage or input error (exit 2).
func usageError(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Kind: "usage", Err: fmt.Errorf(format, args...)}
}

// withCode marks err with an exit code, keeping it for errors.Is/As.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &ExitError{Code: code, Err: err}
}

// withKind marks err with an exit code and error.code.
func withKind(code int, kind string, err error) error {
	return &ExitError{Code: code, Kind: kind, Err: err}
}

// exitCode maps an error to the process exit code: an ExitError's own code,
// 2 for a config or state file that cannot be read as such (input, and
// nothing was sent), 4 for a key the service refused, else 1 (the service
// refused or failed something).
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	switch {
	case errors.As(err, &ee):
		return ee.Code
	case errors.Is(err, config.ErrCorruptFile), ledgerRefused(err):
		return ExitUsage
	case errors.Is(err, client.ErrUnauthorized):
		return ExitAuth
	}
	return ExitService
}

// errorKind is error.code for err: an ExitError's own, else the one its exit
// code stands for.
func errorKind(err error) string {
	var ee *ExitError
	if errors.As(err, &ee) && ee.Kind != "" {
		return ee.Kind
	}
	if errors.Is(err, config.ErrCorruptFile) {
		return "config"
	}
	if ledgerRefused(err) {
		return "ledger"
	}
	switch exitCode(err) {
	case ExitUsage:
		return "usage"
	case ExitUnknown:
		return "unknown_outcome"
	case ExitAuth:
		return "auth"
	case ExitInterrupted:
		return "interrupted"
	}
	return "service"
}

// errorHint is what to do about err: the ExitError's hint, else the
// service's.
func errorHint(err error) string {
	var ee *ExitError
	if errors.As(err, &ee) && ee.Hint != "" {
		return ee.Hint
	}
	var ae *client.APIError
	if errors.As(err, &ae) {
		return ae.Hint()
	}
	return ""
}
