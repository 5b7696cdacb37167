package cli

import (
	"errors"
	"fmt"

	"github.com/smsdesk/smsdesk/config"
)

// Exit codes, as the README documents them.
const (
	ExitOK      = 0 // done
	ExitService = 1 // the service refused or failed something
	ExitUsage   = 2 // usage or input error; nothing was sent
	ExitUnknown = 3 // the outcome is unknown for some recipients
)

// ExitError carries the process exit code for an error.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// usageError marks err as a usage or input error (exit 2).
func usageError(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// withCode marks err with an exit code, keeping it for errors.Is/As.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &ExitError{Code: code, Err: err}
}

// exitCode maps an error to the process exit code: an ExitError's own code,
// 2 for a config or state file that cannot be read as such (input, and
// nothing was sent), else 1 (the service refused or failed something).
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	if errors.Is(err, config.ErrCorruptFile) {
		return ExitUsage
	}
	return ExitService
}
