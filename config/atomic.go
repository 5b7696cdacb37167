package config

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// staleTempAge is how old a leftover temp file must be before a later write of
// the same file removes it. Younger ones may belong to a write in progress.
const staleTempAge = 10 * time.Minute

// WriteFileAtomic replaces path with data so that a reader, or the next run after
// a crash, sees either the old file or the new one, never a mix: it writes a temp
// file in the same directory, fsyncs it, sets perm, renames it over path and
// fsyncs the directory. Missing parent directories are created 0700. Temp files
// left by a crashed earlier write (older than ten minutes) are removed.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return atomicWriter{}.write(path, data, perm)
}

// atomicWriter carries what tests need to simulate a crash.
type atomicWriter struct {
	// beforeRename, when set, runs after the temp file is written and synced and
	// before the rename. A non-nil error stands for the process dying at that
	// moment: write returns it at once and cleans nothing up.
	beforeRename func(tmp string) error
	// now is the clock for the stale-temp sweep; nil means time.Now.
	now func() time.Time
}

func tempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

func (w atomicWriter) write(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating directory %s: %w", dir, err)
	}
	w.removeStaleTemps(path)

	f, err := os.CreateTemp(dir, tempPattern(path))
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	crashed := false
	defer func() {
		if err != nil && !crashed {
			_ = f.Close()      // the error above is the one to report
			_ = os.Remove(tmp) // a leftover is harmless: the error above is the one to report
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", tmp, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("setting mode of %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", tmp, err)
	}
	if w.beforeRename != nil {
		if err := w.beforeRename(tmp); err != nil {
			crashed = true
			return err
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("replacing %s: %w", path, err)
	}
	return syncDir(dir)
}

// syncDir makes the rename durable. Windows cannot sync a directory; there the
// rename is as durable as the file system makes it.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	defer func() { _ = d.Close() }() // read only: a close error loses nothing
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}

// removeStaleTemps deletes temp files of path left behind by a crash. Failures
// are ignored: a leftover temp file is harmless, readers never open it.
func (w atomicWriter) removeStaleTemps(path string) {
	matches, err := filepath.Glob(filepath.Join(filepath.Dir(path), tempPattern(path)))
	if err != nil {
		return
	}
	now := time.Now
	if w.now != nil {
		now = w.now
	}
	prefix := "." + filepath.Base(path) + ".tmp-"
	for _, m := range matches {
		if !strings.HasPrefix(filepath.Base(m), prefix) {
			continue
		}
		if fi, err := os.Lstat(m); err == nil && fi.Mode().IsRegular() && now().Sub(fi.ModTime()) > staleTempAge {
			_ = os.Remove(m) // a leftover is harmless: the error above is the one to report
		}
	}
}
