package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// saveDelay is how long the persister gathers changes before writing DataFile.
const saveDelay = 100 * time.Millisecond

// loadState reads path. found is false when the file does not exist or is
// empty (a fresh store).
func loadState(path string) (st *state, found bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("sandbox: read data file %s: %w", path, err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, false, nil
	}
	st = &state{}
	if err := jsonStrict(b, st); err != nil {
		return nil, false, fmt.Errorf("sandbox: data file %s is corrupt: %w (move it aside to start fresh)", path, err)
	}
	if err := st.validate(); err != nil {
		return nil, false, fmt.Errorf("sandbox: data file %s is corrupt: %w (move it aside to start fresh)", path, err)
	}
	st.index()
	return st, true, nil
}

// writeFileAtomic writes b to path through a temporary file in the same
// directory: write, fsync, rename, then fsync the directory. Mode 0600.
func writeFileAtomic(path string, b []byte) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("sandbox: write data file %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()           // the error above is the one to report
			_ = os.Remove(tmp.Name()) // a leftover is harmless: the error above is the one to report
		}
	}()
	if err = tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("sandbox: write data file %s: %w", path, err)
	}
	if _, err = tmp.Write(b); err != nil {
		return fmt.Errorf("sandbox: write data file %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("sandbox: write data file %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("sandbox: write data file %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("sandbox: write data file %s: %w", path, err)
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()  // best effort: not every file system syncs directories
		_ = d.Close() // best effort, as the sync: opened only to sync
	}
	return nil
}

// persister writes DataFile shortly after changes and on close.
type persister struct {
	path     string
	snapshot func() ([]byte, error)
	log      *slog.Logger

	mu      sync.Mutex // guards timer, dirty, lastErr
	timer   *time.Timer
	dirty   bool
	lastErr error

	writeMu sync.Mutex // serialises writes
}

func newPersister(path string, snapshot func() ([]byte, error), log *slog.Logger) *persister {
	return &persister{path: path, snapshot: snapshot, log: log}
}

// markDirty schedules a write unless one is already scheduled.
func (p *persister) markDirty() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dirty = true
	if p.timer == nil {
		p.timer = time.AfterFunc(saveDelay, p.flushAsync)
	}
}

func (p *persister) flushAsync() {
	if err := p.flush(); err != nil {
		p.log.Error("sandbox: save", "err", err)
	}
}

// flush writes the state if it changed since the last write.
func (p *persister) flush() error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	p.mu.Lock()
	dirty := p.dirty
	p.dirty = false
	p.timer = nil
	p.mu.Unlock()
	if !dirty {
		return nil
	}
	err := p.write()
	p.mu.Lock()
	if err != nil {
		p.dirty = true // keep it for the next attempt
	}
	p.lastErr = err
	p.mu.Unlock()
	return err
}

// saveNow writes the state at once.
func (p *persister) saveNow() error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	return p.write()
}

func (p *persister) write() error {
	b, err := p.snapshot()
	if err != nil {
		return fmt.Errorf("sandbox: encode state for %s: %w", p.path, err)
	}
	return writeFileAtomic(p.path, b)
}

// close stops the timer and writes what is pending.
func (p *persister) close() error {
	p.mu.Lock()
	if p.timer != nil {
		p.timer.Stop()
	}
	p.mu.Unlock()
	return p.flush()
}
