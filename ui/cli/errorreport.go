package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/model"
)

// How an error reaches the operator or the script once the command has
// run: one JSON object on stderr under --json, else the details, the
// message and the hint for people; the exit code says what kind it is
// (exit.go).

// reportError writes err to stderr (the real one: --json and --quiet
// silence only what commands write) and returns its exit code.
func reportError(stderr io.Writer, cmd *cobra.Command, args []string, err error) int {
	if isCobraUsageError(err) {
		err = &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w (see smsdesk --help)", err)}
	}
	switch {
	case errors.Is(err, errSilent):
	case cmd != nil && (jsonRequested(cmd) || jsonInArgs(args) && exitCode(err) == ExitUsage && !cmdHasJSON(cmd)):
		_ = printJSON(stderr, errorJSONOf(err)) // stderr: nowhere left to say it did not write
	default:
		var ee *ExitError
		if errors.As(err, &ee) {
			for _, d := range ee.Details {
				fmt.Fprintln(stderr, model.SanitizeLine(d))
			}
		}
		fmt.Fprintln(stderr, "smsdesk: "+cleanError(err))
	}
	return exitCode(err)
}

// jsonInArgs reports --json (or --json=FIELDS) among the arguments, before
// any "--": a mistyped command given --json ("contacts lst --json") answers
// with the JSON error object a script asked for, though the command that
// ran has no --json.
func jsonInArgs(args []string) bool {
	for _, arg := range args {
		if arg == "--" {
			return false
		}
		if arg == "--json" || strings.HasPrefix(arg, "--json=") {
			return true
		}
	}
	return false
}

// cmdHasJSON reports whether the command has a --json flag.
func cmdHasJSON(cmd *cobra.Command) bool { return cmd.Flags().Lookup("json") != nil }

// jsonRequested reports --json (or --json-lines) on the command that ran:
// stdout is JSON then, and stderr carries only the final error, as JSON.
func jsonRequested(cmd *cobra.Command) bool {
	f := cmd.Flags().Lookup("json")
	return f != nil && f.Value.String() == "true" || jsonLinesRequested(cmd)
}

// jsonLinesRequested reports --json-lines on the command that ran.
func jsonLinesRequested(cmd *cobra.Command) bool {
	f := cmd.Flags().Lookup("json-lines")
	return f != nil && f.Value.String() == "true"
}

// errorJSON is how an error reads on stderr under --json: one object a script
// can parse, whatever went wrong, with the exit code it will see. Absent
// values are null, never missing.
type errorJSON struct {
	Error struct {
		Code        string   `json:"code"` // one of errorCodes
		Message     string   `json:"message"`
		Hint        *string  `json:"hint"`         // what to do about it
		Details     []string `json:"details"`      // refused rows or problems, one a line
		ServiceCode *string  `json:"service_code"` // the service's error_code, when it gave one
		// SendID is the send the refusal is about (ExitError.SendID): for a
		// script, not only in the message's words.
		SendID *string `json:"send_id"`
		Exit   int     `json:"exit"`
	} `json:"error"`
}

func errorJSONOf(err error) errorJSON {
	var out errorJSON
	out.Error.Exit = exitCode(err)
	out.Error.Code = errorKind(err)
	out.Error.Message = model.SanitizeLine(err.Error())
	out.Error.Details = []string{}
	if h := errorHint(err); h != "" {
		out.Error.Hint = &h
	}
	var ee *ExitError
	if errors.As(err, &ee) && ee.Details != nil {
		out.Error.Details = ee.Details
	}
	if ee != nil && ee.SendID != "" {
		out.Error.SendID = &ee.SendID
	}
	var ae *client.APIError
	if errors.As(err, &ae) && ae.Code != "" {
		out.Error.ServiceCode = &ae.Code
	}
	return out
}

// isCobraUsageError recognises cobra's own parsing errors (unknown command,
// wrong arguments), which cobra returns as plain errors without a type.
func isCobraUsageError(err error) bool {
	var ee *ExitError
	if errors.As(err, &ee) {
		return false
	}
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "invalid argument"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// errSilent marks an error already reported to the user.
var errSilent = errors.New("already reported")
