package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// A SQLite ledger in WAL mode is three files: smsdesk.db, its -wal (the
// commits not yet copied into it) and its -shm (the index every process
// on the file shares to find them). Replaced underneath a running
// process, they split the ledger in two: a process that opens the file
// after `rm smsdesk.db-shm` makes a new index that knows nothing of the
// others', and their commits overwrite each other in the one -wal (a
// send of 30 that exited 0 vanished from the ledger, and the same file
// sent the 30 again); a -wal truncated underneath leaves a malformed
// file at the next checkpoint. Before each write transaction a process
// checks that the -wal and -shm at the ledger's path are the files it has
// open (the same file, by device and inode: os.SameFile), and that the
// -wal did not shrink (SQLite grows it and restarts it from its start,
// never truncates it: smsdesk sets no journal_size_limit and checkpoints
// with TRUNCATE only a ledger being built). A change is damage: refused,
// never written through, and not marked in the ledger (a write through
// the replaced files is what overwrites).
//
// A process keeps one connection open for the ledger's life (walFiles'
// pin), so that the files it opened stay its files: SQLite deletes the
// -wal and -shm only when the last connection to the file closes.

// walFiles are the -wal and -shm a process has open, as it opened them.
type walFiles struct {
	path string
	pin  *sql.Conn // open for the ledger's life: the files stay open

	mu       sync.Mutex
	wal, shm fs.FileInfo
	walSize  int64 // the largest size seen
}

// pinFiles opens the connection that keeps the ledger's -wal and -shm open
// (a read opens them) and notes them.
func pinFiles(ctx context.Context, db *sql.DB, path string) (*walFiles, error) {
	pin, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var n int
	if err := pin.QueryRowContext(ctx, "SELECT count(*) FROM meta").Scan(&n); err != nil {
		_ = pin.Close() // the error above is the one to report
		return nil, err
	}
	f := &walFiles{path: path, pin: pin}
	if f.wal, err = os.Stat(path + "-wal"); err == nil {
		f.shm, err = os.Stat(path + "-shm")
	}
	if err != nil {
		_ = pin.Close() // the error above is the one to report
		return nil, fmt.Errorf("opening the ledger %s: %w", path, err)
	}
	f.walSize = f.wal.Size()
	return f, nil
}

// close lets the pinned connection go (before the pool closes).
func (f *walFiles) close() {
	if f != nil {
		_ = f.pin.Close() // a connection that only read: nothing written to lose
	}
}

// changed says how the -wal or -shm at the ledger's path differs from the
// files this process has open ("" when it does not).
func (f *walFiles) changed() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range []struct {
		suffix string
		had    fs.FileInfo
	}{{"-wal", f.wal}, {"-shm", f.shm}} {
		fi, err := os.Stat(f.path + c.suffix)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Sprintf("its file %s%s was deleted or moved while this process had it open", f.path, c.suffix)
		case err != nil:
			return fmt.Sprintf("its file %s%s cannot be looked at: %v", f.path, c.suffix, err)
		case !os.SameFile(fi, c.had):
			return fmt.Sprintf("its file %s%s was replaced while this process had it open", f.path, c.suffix)
		case c.suffix == "-wal" && fi.Size() < f.walSize:
			return fmt.Sprintf("its file %s-wal shrank from %d to %d bytes while this process had it open", f.path, f.walSize, fi.Size())
		case c.suffix == "-wal":
			f.walSize = fi.Size()
		}
	}
	return ""
}

// filesStill refuses a write when the ledger's files are no longer the
// ones this process has open (walFiles): damage, never written through.
// On PostgreSQL there is nothing to check.
func (l *Ledger) filesStill() error {
	if l.files == nil {
		return nil
	}
	if why := l.files.changed(); why != "" {
		return l.fail("writing", &DamagedError{Where: l.where, Backend: l.d.backend(),
			Problem: why + " (another program, or a hand, removed or truncated it): this process writes nothing more to it", Err: errReplaced})
	}
	return nil
}

// A SQLite ledger whose -wal or -shm was replaced underneath this process
// cannot be marked through them (errReplaced), and what the -wal held
// since its last checkpoint may be gone: another process that opens the
// file reads a ledger consistent and older (a send that went reads as
// not started), and would send again what went. So the process that
// found it writes the mark beside the file instead, <path>.damaged, and
// every start of every process on the file reads it as the mark (as
// meta's row: markedDamage). Moving the ledger aside to restore a backup
// or start anew moves it too (the restore's words say so).

// besideSuffix names the mark beside a SQLite ledger's file.
const besideSuffix = ".damaged"

// markBeside writes body as the mark beside the ledger's file, unless one
// is there already.
func (f *walFiles) markBeside(body []byte) error {
	file, err := os.OpenFile(f.path+besideSuffix, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w; and the mark beside it, %s%s, could not be written: %v", errReplaced, f.path, besideSuffix, err)
	}
	_, err = file.Write(body)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%w; and the mark beside it, %s%s, could not be written: %v", errReplaced, f.path, besideSuffix, err)
	}
	return nil
}

// besideMark is the mark beside the ledger's file as a start reads it
// (not Valid: none); one that cannot be read is a mark too.
func (f *walFiles) besideMark() sql.NullString {
	b, err := os.ReadFile(f.path + besideSuffix)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return sql.NullString{}
	case err != nil:
		return sql.NullString{String: fmt.Sprintf("%s%s cannot be read: %v", f.path, besideSuffix, err), Valid: true}
	}
	return sql.NullString{String: string(b), Valid: true}
}
