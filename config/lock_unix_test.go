//go:build unix

package config

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model/eventually"
)

// lockHelperEnv names the lock file TestLockHelper holds until it is killed.
const lockHelperEnv = "SMSDESK_CONFIG_LOCK_HELPER"

// TestLockHelper is the process TestKilledHolderLeavesNoLock kills: it
// takes the lock, says so (a file beside it), and waits to be killed.
func TestLockHelper(t *testing.T) {
	path := os.Getenv(lockHelperEnv)
	if path == "" {
		t.Skip("helper process for TestKilledHolderLeavesNoLock")
	}
	if _, err := lockFile(path); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".held", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {} // until killed
}

// TestKilledHolderLeavesNoLock: a process killed (SIGKILL) while it holds a
// state file's lock leaves no lock behind: the next update goes at once.
// (The O_EXCL lock file it left kept every other smsdesk waiting 5 s, then
// refusing, for 30 s.)
func TestKilledHolderLeavesNoLock(t *testing.T) {
	if os.Getenv(lockHelperEnv) != "" {
		t.Skip("in the helper process")
	}
	path := filepath.Join(t.TempDir(), "groups.json")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelper$")
	cmd.Env = append(os.Environ(), lockHelperEnv+"="+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	eventually.True(t, 3*time.Minute, func() bool { // the state: the helper holds the lock (a hang guard, no budget)
		if _, err := os.Stat(path + ".held"); err == nil {
			return true
		}
		select {
		case err := <-exited:
			t.Fatalf("the helper ended before it held the lock: %v", err)
		default:
		}
		return false
	}, func() string { return "the helper never held the lock" })
	if _, ok, err := tryLock(path + ".lock"); ok || err != nil {
		t.Fatalf("the helper's lock was taken while it lives: ok %v, %v", ok, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited // killed and gone: the kernel has released its lock
	unlock, ok, err := tryLock(path + ".lock")
	if err != nil || !ok {
		t.Fatalf("after the holder was killed: ok %v, %v", ok, err)
	}
	unlock()
}
