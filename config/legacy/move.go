package legacy

import (
	"bytes"
	"encoding/json"
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

// upgradeLock keeps two upgrades of one state directory apart (a serve
// and a cron job started at once): the second waits, then finds nothing
// left to do. It stays, empty, as the file store's lock files did.
const upgradeLock = "before-ledger.lock"

// upgradeWait is how long an upgrade waits for another's: an import of
// years of sends takes a while.
const upgradeWait = 10 * time.Minute

// lockFileStore takes the upgrade's lock and the file store's locks in dir.
func lockFileStore(dir string) (_ *fileLocks, err error) {
	fl := &fileLocks{dir: dir, files: map[string]*os.File{}}
	defer func() {
		if err != nil {
			fl.release()
		}
	}()
	if err := fl.wait(upgradeLock, upgradeWait); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(filepath.Join(dir, "sends")); err == nil && fi.IsDir() {
		if err := fl.wait(filepath.Join("sends", ".start"+lockExt), lockWait); err != nil {
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
			if _, err := os.Stat(filepath.Join(fl.dir, rel)); err != nil || !a.IsDir() || movedListAt(filepath.Join(fl.dir, rel)) {
				continue
			}
			if err := fl.wait(rel+lockExt, lockWait); err != nil {
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
		_ = f.Close() // not ours to hold: opened only to lock, nothing written
		if err != nil {
			return false, fmt.Errorf("locking %s: %w", rel, err)
		}
		return true, nil
	}
	fl.files[rel] = f
	return false, nil
}

// wait takes the lock file rel, waiting up to d for another process to
// let it go.
func (fl *fileLocks) wait(rel string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		held, err := fl.try(rel, true)
		switch {
		case err != nil:
			return err
		case !held:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("%s is locked by another smsdesk (a serve, a scheduler or a send) for more than %v: let it finish, or stop it", filepath.Join(fl.dir, rel), d)
		}
		time.Sleep(lockPoll)
	}
}

// close lets rel go (before it moves, where a file held open cannot).
func (fl *fileLocks) close(rel string) {
	if f, ok := fl.files[rel]; ok {
		_ = f.Close() // opened only to lock, nothing written: closing lets the lock go
		delete(fl.files, rel)
	}
}

// release lets every lock go.
func (fl *fileLocks) release() {
	for rel := range fl.files {
		fl.close(rel)
	}
}

// movedName starts the file left where the send history was.
const movedName = "smsdesk keeps its memory in the ledger now"

// movedList is what an account's opt-out list and once-only ids hold once
// moved: a version the file store refuses to read, so that an older
// smsdesk still running refuses to send on the account, rather than read a
// list that is gone as empty (there is no moment when the file is missing:
// it is replaced in one rename).
type movedList struct {
	Version int    `json:"version"` // 0: never a version the file store wrote
	Moved   string `json:"moved_to_ledger"`
}

// asideDir is where an upgrade of dir moves its files: <state>/before-ledger/,
// or before-ledger-2/, … when an earlier upgrade's is there.
func asideDir(dir string) string {
	root := filepath.Join(dir, "before-ledger")
	for n := 2; ; n++ {
		if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
			return root
		}
		root = filepath.Join(dir, fmt.Sprintf("before-ledger-%d", n))
	}
}

// moveAside moves every file of snap into root (asideDir), keeping their
// paths and modes. An account's opt-out list and once-only ids are each
// replaced where they were by a movedList, and the send history's
// directory by a file saying where it went.
func moveAside(snap *Snapshot, fl *fileLocks, root string) error {
	if err := os.Mkdir(root, 0o700); err != nil {
		return err
	}
	dirs := map[string]bool{}
	for _, rel := range snap.Files {
		if !renameLocked {
			fl.close(rel)
		}
		from, to := filepath.Join(snap.Dir, rel), filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			return err
		}
		var err error
		if name := filepath.Base(rel); name == optOutsName || name == onceName {
			err = replaceList(from, to)
			dirs[filepath.Dir(from)] = true
		} else {
			err = os.Rename(from, to)
		}
		if err != nil {
			return err
		}
		dirs[filepath.Dir(to)] = true
	}
	for d := range dirs {
		if err := syncDir(d); err != nil {
			return err
		}
	}
	if err := leaveNote(snap.Dir, root); err != nil {
		return err
	}
	return syncDir(snap.Dir)
}

// replaceList puts the list at from into to (a hard link: the same file,
// its mode kept; a copy where links cannot be made) and then, in one
// rename, a movedList in its place.
func replaceList(from, to string) error {
	if err := os.Link(from, to); err != nil {
		data, rerr := os.ReadFile(from)
		if rerr != nil {
			return rerr
		}
		if err := writeSynced(to, data); err != nil {
			return err
		}
	}
	note, err := json.MarshalIndent(movedList{Moved: fmt.Sprintf("into the ledger; the list that was here is in %s", to)}, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(from), "."+filepath.Base(from)+".tmp-ledger")
	if err := writeSynced(tmp, append(note, '\n')); err != nil {
		return err
	}
	if err := os.Rename(tmp, from); err != nil {
		_ = os.Remove(tmp) // a leftover is harmless: the error above is the one to report
		return err
	}
	return nil
}

// writeSynced writes a new file (0600) and syncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path) // a leftover is harmless: the error above is the one to report
	}
	return err
}

// leaveNote removes sends/ once emptied and puts a file in its place
// saying where its files went: an older smsdesk cannot make a journal
// there. A directory that holds what appeared meanwhile stays (the next
// start imports that).
func leaveNote(dir, root string) error {
	path := filepath.Join(dir, "sends")
	if fi, err := os.Lstat(path); err != nil || !fi.IsDir() || os.Remove(path) != nil {
		return nil
	}
	note := fmt.Sprintf("%s: the files that were here are in %s.\nAn older smsdesk cannot use this state directory any more.\n",
		movedName, filepath.Join(root, "sends"))
	err := writeSynced(path, []byte(note))
	if errors.Is(err, fs.ErrExist) {
		return nil // an older smsdesk made the directory again just now
	}
	return err
}

// moved reports whether path is the file an upgrade left where the send
// history was.
func moved(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }() // read only: a close error loses nothing
	head := make([]byte, len(movedName))
	n, _ := f.Read(head)
	return bytes.Equal(head[:n], []byte(movedName))
}

// movedListAt reports whether the file at path is a movedList.
func movedListAt(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var m movedList
	return json.Unmarshal(data, &m) == nil && m.Moved != "" && m.Version == 0
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
	defer func() { _ = d.Close() }() // read only: a close error loses nothing
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}
