package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Lock timings. A state update holds its lock for milliseconds, so a lock older
// than staleLockAge was left by a process that died, and is broken.
const (
	lockWait     = 5 * time.Second
	lockPoll     = 15 * time.Millisecond
	staleLockAge = 30 * time.Second
)

// lockFile takes an exclusive lock on path+".lock" by creating it with O_EXCL
// (portable, unlike flock), waiting up to lockWait. It serialises
// read-modify-write cycles of one state file across processes, so two smsdesk
// runs tracking groups at once both keep their group. The returned func
// releases the lock.
func lockFile(path string) (func(), error) {
	lock := path + ".lock"
	deadline := time.Now().Add(lockWait)
	for {
		f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.WriteString(strconv.Itoa(os.Getpid()) + "\n")
			f.Close()
			return func() { os.Remove(lock) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if fi, serr := os.Stat(lock); serr == nil && time.Since(fi.ModTime()) > staleLockAge {
			os.Remove(lock) // left by a process that died mid-update
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is locked by another smsdesk (lock file %s); wait for it to finish, or remove the lock file if no smsdesk is running", path, lock)
		}
		time.Sleep(lockPoll)
	}
}

// underLock runs fn while holding path's lock, creating path's directory
// (0700) first: the read-modify-write of one state file.
func underLock(path string, fn func() error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	unlock, err := lockFile(path)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// LockSendStart serialises the start of new sends in this state directory:
// a run holds it from its last look for repeats until its journal holds its
// plan, so that two runs started together (overlapping cron jobs, a second
// terminal that waited at its question) cannot both miss the other. It
// waits up to lockWait; the returned func releases it.
func LockSendStart(p Paths) (func(), error) {
	if err := os.MkdirAll(p.SendsDir(), 0o700); err != nil {
		return nil, fmt.Errorf("creating the send history directory: %w", err)
	}
	return lockFile(filepath.Join(p.SendsDir(), ".start"))
}
