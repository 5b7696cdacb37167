//go:build unix

package legacy_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/legacy"
	"github.com/smsdesk/smsdesk/config/legacy/legacytest"
)

// An older smsdesk sending a send now (its journal locked, as the file
// store locked it) stops the upgrade: nothing is imported or moved, no
// ledger is made, and the error says what to do.
func TestUpgradeWhileAnOlderSmsdeskSends(t *testing.T) {
	dir := legacytest.Fixture(t)
	f, err := os.OpenFile(filepath.Join(dir, "sends", sendUnknown+".jsonl"), os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	location := filepath.Join(dir, ledger.FileName)
	rep, err := legacy.Upgrade(context.Background(), dir, location)
	var ue *legacy.UpgradeError
	if rep != nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), "send "+sendUnknown+" is in use by an older smsdesk") {
		t.Fatalf("Upgrade = %+v, %v", rep, err)
	}
	if after := tree(t, dir); !maps.Equal(before, after) {
		t.Errorf("the state directory changed:\nbefore %v\nafter  %v", before, after)
	}
	if _, err := os.Stat(location); err == nil {
		t.Error("a ledger was made")
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if rep, err := legacy.Upgrade(context.Background(), dir, location); err != nil || rep.Sends != 5 {
		t.Errorf("once it finished: %+v, %v", rep, err)
	}
}
