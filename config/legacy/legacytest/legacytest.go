// Package legacytest gives tests a state directory as smsdesk's file store
// left it before the ledger: a copy of config/legacy's checked-in fixture
// (testdata/state-before-ledger, made by the binary of main at 6faebd1; its
// README.txt says how).
package legacytest

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Fixture copies the fixture into a new directory under t.TempDir() and
// returns it: files 0600 and directories 0700, as the file store made them
// (git keeps neither). Its README.txt is left out.
func Fixture(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("legacytest: cannot find the fixture")
	}
	src := filepath.Join(filepath.Dir(file), "..", "testdata", "state-before-ledger")
	dst := filepath.Join(t.TempDir(), "state")
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o700)
		case rel == "README.txt":
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o600)
	})
	if err != nil {
		t.Fatalf("legacytest: copying the fixture: %v", err)
	}
	return dst
}
