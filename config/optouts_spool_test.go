package config

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/smsdesk/smsdesk/model"
)

// TestOptOutSpool: an import's numbers come back whole and in order, every
// time they are read (a transaction tried again reads them again), from
// memory or, past its limit, from a file in the state directory that is
// 0600 and leaves no name behind (unlinked at once where the system
// allows: a process stopped with ctrl+c or killed leaves nothing; removed
// by Close elsewhere).
func TestOptOutSpool(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		spilled bool
	}{{"in memory", 100, false}, {"in a file", 5000, true}} {
		t.Run(tc.name, func(t *testing.T) {
			p := testPaths(t)
			s := NewOptOutSpool(p)
			s.limit = 4096 // 13 bytes a number: past it at 316
			want := make([]string, tc.n)
			for i := range want {
				want[i] = fmt.Sprintf("0912%07d", i)
				if err := s.Add(want[i]); err != nil {
					t.Fatal(err)
				}
			}
			if s.Len() != tc.n || s.Spilled() != tc.spilled {
				t.Fatalf("len %d spilled %v, want %d %v", s.Len(), s.Spilled(), tc.n, tc.spilled)
			}
			if tc.spilled {
				fi, err := s.file.Stat()
				if err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("the spool's file: %v %v, want 0600", fi.Mode(), err)
				}
				if left := dirNames(t, p.StateDir); runtime.GOOS != "windows" && len(left) != 0 {
					t.Errorf("the state directory holds %v while the spool is open, want no name", left)
				}
			}
			entry := model.OptOut{Sender: "3000", Note: "n"}
			for range 2 {
				i := 0
				for o, err := range s.entries(entry) {
					if err != nil || i >= len(want) || o.Mobile != want[i] || o.Sender != "3000" || o.Note != "n" {
						t.Fatalf("entry %d: %+v %v", i, o, err)
					}
					i++
				}
				if i != len(want) {
					t.Fatalf("read %d entries back, want %d", i, len(want))
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if left := dirNames(t, p.StateDir); len(left) != 0 {
				t.Errorf("the state directory holds %v after Close", left)
			}
		})
	}
}

// dirNames are the names in dir (none when it does not exist).
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}
