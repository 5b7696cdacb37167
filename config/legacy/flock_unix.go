//go:build unix

package legacy

import (
	"errors"
	"os"
	"syscall"
)

// flock takes a non-blocking exclusive lock on f, as the file store took
// its locks (flock(2)); held reports that another open file holds it.
func flock(f *os.File) (held bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// renameLocked: a file may be renamed while this process holds it open
// and locked.
const renameLocked = true
