package config

import (
	"errors"
	"os"
	"syscall"
)

// datasync makes f's written data durable with fdatasync(2): for a file that
// only grows by appends, that covers the data and the new size (metadata
// needed to read the data back), and skips the timestamps fsync would also
// write.
func datasync(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			serr = syscall.Fdatasync(int(fd))
			if !errors.Is(serr, syscall.EINTR) {
				return
			}
		}
	}); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: serr}
	}
	return nil
}
