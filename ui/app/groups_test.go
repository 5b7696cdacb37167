package app

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
)

// TestTrackGroupAsksTheService: a group the service does not have is not
// tracked (its audit line says why); one it has is, under the name given
// or "group ID"; untracking a group the profile does not know changes
// nothing and records nothing.
func TestTrackGroupAsksTheService(t *testing.T) {
	v := newService(t, sandbox.Options{Seed: true})
	paths := tempPaths(t)
	s := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
	ctx := context.Background()
	if _, err := s.TrackGroup(ctx, "999", "ghost"); err == nil || !strings.Contains(err.Error(), "group 999 does not exist on the service; nothing was tracked") {
		t.Fatalf("tracking a missing group: %v", err)
	}
	if g, err := s.TrackGroup(ctx, "4", ""); err != nil || g.Name != "group 4" {
		t.Fatalf("tracking group 4: %+v, %v", g, err)
	}
	known, err := s.KnownGroups()
	if err != nil || len(known) != 1 || known[0].ID != "4" || known[0].Contacts != -1 {
		t.Fatalf("known groups: %+v, %v", known, err)
	}
	if found, err := s.UntrackGroup("12"); found || err != nil {
		t.Fatalf("untracking an unknown group: %v, %v", found, err)
	}
	if err := s.RememberContacts("4", 300); err != nil {
		t.Fatal(err)
	}
	if known, _ := s.KnownGroups(); known[0].Contacts != 300 {
		t.Errorf("remembered count %d", known[0].Contacts)
	}
	data, _ := os.ReadFile(paths.AuditFile())
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"error":"group 999 does not exist`) || !strings.Contains(lines[1], `"action":"track_group"`) {
		t.Errorf("audit:\n%s", data)
	}
}
