package config

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/smsdesk/smsdesk/config/ledger"
)

// Lock timings. A state update holds its lock for milliseconds; another
// smsdesk waits up to lockWait for it.
const (
	lockWait = 5 * time.Second
	lockPoll = 15 * time.Millisecond
)

// lockFile takes an exclusive lock on path+".lock", waiting up to lockWait:
// it serialises the read-modify-write of one state file across processes,
// so two smsdesk runs tracking groups at once both keep their group. The
// returned func releases it.
//
// The lock is the kernel's (flock(2); LockFileEx on Windows, the same as
// the journals' and as github.com/gofrs/flock takes, without the
// dependency: the journals' twenty lines were here already): the kernel
// releases it when the process ends, however it ends. The O_EXCL lock files
// this replaces were held by their existence and guessed stale after 30 s:
// a process killed mid-update left every other smsdesk waiting, and one
// stopped for longer (ctrl+z, a stalled disk) had its lock broken and its
// update lost to the next writer. The lock file stays (empty, 0600): its
// presence means nothing, and removing it while another process waits on it
// would let a third lock a new file beside them.
func lockFile(path string) (func(), error) {
	lock := path + ".lock"
	deadline := time.Now().Add(lockWait)
	for {
		unlock, ok, err := tryLock(lock)
		switch {
		case err != nil:
			return nil, fmt.Errorf("locking %s: %w", path, err)
		case ok:
			return unlock, nil
		case time.Now().After(deadline):
			return nil, fmt.Errorf("%s is locked by another smsdesk (on %s) for more than %v; wait for it to finish and try again", path, lock, lockWait)
		}
		time.Sleep(lockPoll)
	}
}

// tryLock takes the kernel lock on the file lock (created 0600) if no open
// file holds it; ok is false when one does.
func tryLock(lock string) (unlock func(), ok bool, err error) {
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, false, err
	}
	release, err := flockExclusive(f)
	if err != nil {
		_ = f.Close() // the error above is the one to report
		if lockHeld(err) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return func() {
		release()
		_ = f.Close() // the lock goes with it; nothing was written to lose
	}, true, nil
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

// rewriteUnderLock is a read-modify-write of one state file under its lock:
// read gives what the file holds (a file that does not read is an error and
// is never overwritten), modify changes it and says whether it did, and
// what changed is written atomically (0600) as indented JSON of what
// encode makes of it. The known groups, the opt-out lists and the
// once-only send ids are kept so.
func rewriteUnderLock[T any](path string, read func(string) (T, error), modify func(T) (T, bool, error), encode func(T) any) error {
	return underLock(path, func() error {
		v, err := read(path)
		if err != nil {
			return err
		}
		v, changed, err := modify(v)
		if err != nil || !changed {
			return err
		}
		data, err := json.MarshalIndent(encode(v), "", "  ")
		if err != nil {
			return fmt.Errorf("encoding %s: %w", path, err)
		}
		return WriteFileAtomic(path, append(data, '\n'), 0o600)
	})
}

// LockSendStart serialises the start of new sends on the ledger: a run
// holds it from its last look for repeats and once-only ids until the
// ledger holds its plan, so that two runs started together (overlapping
// cron jobs, a second terminal that waited at its question, runners on two
// hosts) cannot both miss the other. Another smsdesk's start is waited for
// as a record write waits (ledger.RecordWait: it takes milliseconds, but
// its own records may wait for another writer), said after about a second
// to ctx's notice (WithLedgerWaits) and cut short by ctx; the returned
// func releases it. On a SQLite ledger it is a lock on a file beside it
// (smsdesk.db.lock); on PostgreSQL a session advisory lock on a connection
// of its own. It is a lock, not a transaction, and must never be held
// across a network request: ask the service first (credit, prices), then
// take it and look again at the ledger only (ui/app's runners ask for the
// credit before they claim a due send or take this lock).
func LockSendStart(ctx context.Context, p Paths) (func(), error) {
	l, err := p.Ledger(ctx)
	if err != nil {
		return nil, err
	}
	if l.Backend() == ledger.Postgres {
		return l.LockStarts(ctx)
	}
	return lockStartFile(ctx, l)
}

// errStartLocked is what a try of a SQLite ledger's start lock met.
var errStartLocked = errors.New("its lock file is locked")

// lockStartFile takes a SQLite ledger's start lock, the kernel's lock on
// <ledger>.lock, waiting for another process's under the ledger's record
// bound (a file lock has no waiting of its own: tried every few
// milliseconds).
func lockStartFile(ctx context.Context, l *ledger.Ledger) (func(), error) {
	path := l.Where()
	w := l.NewWaiter(ctx, "starting a send")
	defer w.Over()
	for {
		unlock, ok, err := tryLock(path + ".lock")
		switch {
		case err != nil:
			return nil, fmt.Errorf("locking %s: %w", path, err)
		case ok:
			return unlock, nil
		}
		if err := w.Contended("another smsdesk is starting a send (it holds "+path+".lock)", errStartLocked); err != nil {
			return nil, err
		}
	}
}
