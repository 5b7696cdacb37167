//go:build unix

package config

import (
	"errors"
	"os"
	"syscall"
)

// Kernel file locks, for the journals (flock on the journal itself) and for
// the read-modify-write of state files (lock.go).

// flockExclusive takes a non-blocking exclusive flock on f. The kernel drops
// it when the process dies, so a killed send never leaves its journal locked.
func flockExclusive(f *os.File) (func(), error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return nil, err
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
}

// lockHeld reports whether flockExclusive failed because another open file
// holds the lock (not because locks cannot be had here).
func lockHeld(err error) bool { return errors.Is(err, syscall.EWOULDBLOCK) }
