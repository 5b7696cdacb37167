//go:build windows

package legacy

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// flock takes a non-blocking exclusive lock on f's whole file with
// LockFileEx, as the file store took its locks; held reports that another
// open handle holds it.
func flock(f *os.File) (held bool, err error) {
	const flags = windows.LOCKFILE_EXCLUSIVE_LOCK | windows.LOCKFILE_FAIL_IMMEDIATELY
	err = windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, ^uint32(0), ^uint32(0), new(windows.Overlapped))
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return true, nil
	}
	return false, err
}

// renameLocked: Windows renames no file a handle holds open; each is
// closed just before it moves.
const renameLocked = false
