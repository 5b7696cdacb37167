package legacy

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// fileLocks are the file store's locks an upgrade holds, each an open file
// by its path relative to the state directory: the send-start lock (no
// older smsdesk starts a send meanwhile), every journal's (none is being
// sent or resumed) and every account file's (no opt-out is being added).
type fileLocks struct {
	dir   string
	files map[string]*os.File
}

// How long an upgrade waits for an older smsdesk's lock: the file store
// held its locks for milliseconds, or for a send's start.
const (
	lockWait = 5 * time.Second
	lockPoll = 15 * time.Millisecond
)

// lockFileStore takes the file store's locks in dir.
func lockFileStore(dir string) (_ *fileLocks, err error) {
	fl := &fileLocks{dir: dir, files: map[string]*os.File{}}
	defer func() {
		if err != nil {
			fl.release()
		}
	}()
	if fi, err := os.Stat(filepath.Join(dir, "sends")); err == nil && fi.IsDir() {
		if err := fl.wait(filepath.Join("sends", ".start"+lockExt)); err != nil {
			return nil, err
		}
	}
	if err := fl.journals(); err != nil {
		return nil, err
	}
	if err := fl.accounts(); err != nil {
		return nil, err
	}
	return fl, nil
}

// journals locks every journal, refusing one another process holds.
func (fl *fileLocks) journals() error {
	entries, err := readDir(filepath.Join(fl.dir, "sends"))
	if err != nil {
		return err
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), journalExt)
		if !ok || e.IsDir() {
			continue
		}
		held, err := fl.try(filepath.Join("sends", e.Name()), false)
		if err != nil {
			return err
		}
		if held {
			return fmt.Errorf("send %s is in use by an older smsdesk (it is sending or resuming it now): let it finish, or stop it", id)
		}
	}
	return nil
}

// accounts takes the lock of every account's opt-out list and once-only ids.
func (fl *fileLocks) accounts() error {
	accounts, err := readDir(filepath.Join(fl.dir, "accounts"))
	if err != nil {
		return err
	}
	for _, a := range accounts {
		for _, name := range []string{optOutsName, onceName} {
			rel := filepath.Join("accounts", a.Name(), name)
			if _, err := os.Stat(filepath.Join(fl.dir, rel)); err != nil || !a.IsDir() {
				continue
			}
			if err := fl.wait(rel + lockExt); err != nil {
				return err
			}
		}
	}
	return nil
}

// try takes the lock on rel (made 0600 when create and it is not there);
// held is true when another process holds it.
func (fl *fileLocks) try(rel string, create bool) (held bool, err error) {
	flags := os.O_RDWR
	if create {
		flags |= os.O_CREATE
	}
	f, err := os.OpenFile(filepath.Join(fl.dir, rel), flags, 0o600)
	if err != nil {
		return false, fmt.Errorf("locking %s: %w", rel, err)
	}
	held, err = flock(f)
	if err != nil || held {
		f.Close()
		if err != nil {
			return false, fmt.Errorf("locking %s: %w", rel, err)
		}
		return true, nil
	}
	fl.files[rel] = f
	return false, nil
}

// wait takes the lock file rel, waiting up to lockWait for another
// process to let it go.
func (fl *fileLocks) wait(rel string) error {
	deadline := time.Now().Add(lockWait)
	for {
		held, err := fl.try(rel, true)
		switch {
		case err != nil:
			return err
		case !held:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("%s is locked by an older smsdesk (a serve, a scheduler or a send) for more than %v: let it finish, or stop it", filepath.Join(fl.dir, rel), lockWait)
		}
		time.Sleep(lockPoll)
	}
}

// close lets rel go (before it moves, where a file held open cannot).
func (fl *fileLocks) close(rel string) {
	if f, ok := fl.files[rel]; ok {
		f.Close()
		delete(fl.files, rel)
	}
}

// release lets every lock go.
func (fl *fileLocks) release() {
	for rel := range fl.files {
		fl.close(rel)
	}
}

// movedName starts the file left where the send history and the accounts'
// files were.
const movedName = "smsdesk keeps its memory in the ledger now"

// moveAside moves every file of snap into <state>/before-ledger/ (or
// before-ledger-2/, … when an earlier upgrade's is there), keeping their
// paths and modes, and leaves a file saying so where sends/ and accounts/
// were. It returns where they went.
func moveAside(snap *Snapshot, fl *fileLocks) (string, error) {
	root := filepath.Join(snap.Dir, "before-ledger")
	for n := 2; ; n++ {
		if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
			break
		}
		root = filepath.Join(snap.Dir, fmt.Sprintf("before-ledger-%d", n))
	}
	if err := os.Mkdir(root, 0o700); err != nil {
		return "", err
	}
	dirs := map[string]bool{}
	for _, rel := range snap.Files {
		if !renameLocked {
			fl.close(rel)
		}
		to := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			return "", err
		}
		if err := os.Rename(filepath.Join(snap.Dir, rel), to); err != nil {
			return "", err
		}
		dirs[filepath.Dir(to)] = true
	}
	for d := range dirs {
		if err := syncDir(d); err != nil {
			return "", err
		}
	}
	if err := leaveNotes(snap.Dir, root); err != nil {
		return "", err
	}
	return root, syncDir(snap.Dir)
}

// leaveNotes removes sends/ and accounts/ (and each account's directory)
// once emptied, and puts a file of the same name in each one's place, so
// that an older smsdesk fails there rather than start from nothing.
func leaveNotes(dir, root string) error {
	accounts := filepath.Join(dir, "accounts")
	entries, _ := readDir(accounts)
	for _, e := range entries {
		if e.IsDir() {
			os.Remove(filepath.Join(accounts, e.Name())) // emptied, or holding what appeared since: kept
		}
	}
	for _, name := range []string{"sends", "accounts"} {
		path := filepath.Join(dir, name)
		if fi, err := os.Lstat(path); err != nil || !fi.IsDir() || os.Remove(path) != nil {
			continue
		}
		note := fmt.Sprintf("%s: the files that were here are in %s.\nAn older smsdesk cannot use this state directory any more (it would not find the opt-out list).\n",
			movedName, filepath.Join(root, name))
		if err := os.WriteFile(path, []byte(note), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// moved reports whether path is the file an upgrade left where a
// directory of the file store was.
func moved(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(movedName))
	n, _ := f.Read(head)
	return bytes.Equal(head[:n], []byte(movedName))
}

// syncDir makes renames in dir durable (not on Windows, which cannot sync a
// directory).
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}
