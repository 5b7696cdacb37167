package serve

// The files the server trusts are checked as OpenSSH's StrictModes checks
// a user's authorized_keys and sshd its host keys: whoever can write the
// operators file decides who signs in and with which role; whoever can
// read or replace the host key can pose as this server.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/smsdesk/smsdesk/config"
)

// UntrustedFileError says why the server does not trust a file, and how to
// make it trustworthy.
type UntrustedFileError struct {
	What    string // "operators file", "host key"
	Path    string // the file, or the directory, at fault
	Problem string // "is owned by uid 65534, not by uid 1000 who serves"
	Fix     string // a command that repairs it
}

func (e *UntrustedFileError) Error() string {
	return fmt.Sprintf("%s: %s %s; serve trusts only files of the user it runs as that nobody else may change", e.What, e.Path, e.Problem)
}

// CheckTrusted checks the file at path (what names it: "operators file")
// and its directory: owned by the user serving (or root), writable by
// nobody else, and the file not a symlink to a file outside its directory.
// A file that does not exist passes (its directory is still checked, if
// it exists).
func CheckTrusted(what, path string) error {
	path = filepath.Clean(path)
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := checkOwned(what, dir); err != nil {
		return err
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return fmt.Errorf("%s %s: %w", what, path, err)
		}
		realDir, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return fmt.Errorf("%s %s: %w", what, dir, err)
		}
		if filepath.Dir(target) != realDir {
			return &UntrustedFileError{What: what, Path: path,
				Problem: "is a symlink to " + target + ", outside " + dir,
				Fix:     fmt.Sprintf("put the file itself there: cp --remove-destination %s %s (after checking it)", target, path)}
		}
		path = target // the file it names is the one checked
	}
	return checkOwned(what, path)
}

// TrustedOperators reads the operators file of p, refusing one that
// CheckTrusted does not pass (every sign-in is refused then).
func TrustedOperators(p config.Paths) func() ([]config.OperatorEntry, error) {
	return func() ([]config.OperatorEntry, error) {
		if err := CheckTrusted("operators file", p.OperatorsFile()); err != nil {
			return nil, err
		}
		return config.ReadOperators(p)
	}
}

// writableByOthers is the part of a mode that lets group or others write.
const writableByOthers fs.FileMode = 0o022

// checkMode says what is wrong with path's mode.
func checkMode(what, path string, mode fs.FileMode) error {
	if mode.Perm()&writableByOthers == 0 {
		return nil
	}
	return &UntrustedFileError{What: what, Path: path,
		Problem: fmt.Sprintf("is writable by group or others (mode %v)", mode.Perm()),
		Fix:     "chmod go-w " + path}
}
