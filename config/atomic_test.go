package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestWriteFileAtomicModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix permissions")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b", "file.json")
	if err := WriteFileAtomic(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "two" {
		t.Fatalf("read %q, %v", got, err)
	}
	assertMode(t, path, 0o600)
	assertMode(t, filepath.Join(dir, "a"), 0o700|os.ModeDir)
	assertMode(t, filepath.Join(dir, "a", "b"), 0o700|os.ModeDir)
	assertNoTemps(t, filepath.Join(dir, "a", "b"))
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != want {
		t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
	}
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".json" && filepath.Ext(e.Name()) != ".toml" && filepath.Ext(e.Name()) != ".lock" {
			t.Errorf("unexpected file left in %s: %s", dir, e.Name())
		}
	}
}

var errCrash = errors.New("simulated crash before rename")

// A crash between write and rename leaves the old file whole and a temp file
// behind; loads ignore it and a later write sweeps it once it is stale.
func TestWriteFileAtomicCrashBeforeRename(t *testing.T) {
	p := PathsIn(filepath.Join(t.TempDir(), "c"), t.TempDir())
	old := &Config{Active: "work", Profiles: map[string]*Profile{"work": {BaseURL: "https://old.example/v1"}}}
	if err := old.Save(p); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(p.ConfigFile)

	var leftover string
	w := atomicWriter{beforeRename: func(tmp string) error { leftover = tmp; return errCrash }}
	err := w.write(p.ConfigFile, []byte("active = \"half-written"), 0o600)
	if !errors.Is(err, errCrash) {
		t.Fatalf("write: %v", err)
	}
	if _, err := os.Stat(leftover); err != nil {
		t.Fatalf("the simulated crash should leave the temp file: %v", err)
	}
	after, _ := os.ReadFile(p.ConfigFile)
	if string(after) != string(before) {
		t.Fatalf("old file changed by a crashed write:\n%s", after)
	}
	c, err := Load(p)
	if err != nil {
		t.Fatalf("load after crash: %v", err)
	}
	if _, prof, _ := c.Resolve("", ""); prof.BaseURL != "https://old.example/v1" {
		t.Fatalf("load after crash got %+v", prof)
	}

	// A fresh leftover may belong to a write in progress: kept.
	if err := c.Save(p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(leftover); err != nil {
		t.Fatalf("a fresh temp file was removed: %v", err)
	}
	// Once stale, the next write removes it.
	w = atomicWriter{now: func() time.Time { return time.Now().Add(staleTempAge + time.Minute) }}
	if err := w.write(p.ConfigFile, after, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(leftover); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale temp file not swept: %v", err)
	}
	assertNoTemps(t, p.ConfigDir)
}

func TestWriteFileAtomicFailureCleansUp(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	// Renaming a file over a non-empty directory fails: the temp file must go.
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(target, []byte("data"), 0o600); err == nil {
		t.Fatal("want an error replacing a directory")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temp file left after a failed rename: %v", entries)
	}
}
