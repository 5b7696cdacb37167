package serve

// StrictModes over everything serve trusts besides the operators file and
// the host key: the config file (profiles, rules, the opt-out suffix) and
// the state directory with all it holds, whatever that is (the ledger and
// its -wal and -shm, journals, account directories, opt-out lists): whoever
// can change them can empty an opt-out list or rewrite a send's history.
// As OpenSSH's StrictModes, the directories above them are checked too.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/smsdesk/smsdesk/config"
)

// CheckStrictModes checks p's config file, p's state directory and
// everything in it (recursively), and every directory above them up to the
// root: each must be owned by the user serving (or root) and writable by
// nobody else; a root-owned directory with the sticky bit (/tmp) may be
// writable by others above them, as nobody else can replace what is in it.
// The first at fault is named, with the fix. What does not exist passes;
// an empty StateDir is not checked (serve --demo keeps none).
func CheckStrictModes(p config.Paths) error {
	if err := CheckTrusted("config file", p.ConfigFile); err != nil {
		return err
	}
	if err := checkAbove("directory above the config file", filepath.Dir(p.ConfigFile)); err != nil {
		return err
	}
	if p.StateDir == "" {
		return nil
	}
	if err := checkAbove("directory above the state directory", p.StateDir); err != nil {
		return err
	}
	return checkTree("state directory", p.StateDir)
}

// checkTree checks dir and everything in it; a symlink is checked as what
// it names.
func checkTree(what, dir string) error {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // gone while walked (or no state yet)
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", what, path, err)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return checkOwned(what, path) // os.Stat: the file it names
		}
		fi, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", what, path, err)
		}
		return checkInfo(what, path, fi)
	})
	return err
}

// checkAbove checks each directory above path, up to the root.
func checkAbove(what, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return fmt.Errorf("%s %s: %w", what, dir, err)
		case !(fi.Mode()&fs.ModeSticky != 0 && ownedByRoot(fi)):
			if err := checkInfo(what, dir, fi); err != nil {
				return err
			}
		}
		if filepath.Dir(dir) == dir {
			return nil
		}
	}
}
