//go:build unix

package ledger

import (
	"errors"
	"syscall"
)

// processAlive reports whether process pid runs on this host (EPERM: it
// runs, as another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
