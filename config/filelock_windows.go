//go:build windows

package config

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// flockExclusive takes a non-blocking exclusive lock on f's whole file with
// LockFileEx. Windows drops it when the handle closes or the process dies, so
// a killed send never leaves its journal locked.
func flockExclusive(f *os.File) (func(), error) {
	h := windows.Handle(f.Fd())
	ol := new(windows.Overlapped)
	const flags = windows.LOCKFILE_EXCLUSIVE_LOCK | windows.LOCKFILE_FAIL_IMMEDIATELY
	if err := windows.LockFileEx(h, flags, 0, ^uint32(0), ^uint32(0), ol); err != nil {
		return nil, err
	}
	return func() { _ = windows.UnlockFileEx(h, 0, ^uint32(0), ^uint32(0), ol) }, nil
}

// lockHeld reports whether flockExclusive failed because another open
// handle holds the lock (not because locks cannot be had here).
func lockHeld(err error) bool { return errors.Is(err, windows.ERROR_LOCK_VIOLATION) }
