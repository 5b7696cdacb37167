package app

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
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
	if found, err := s.UntrackGroup(t.Context(), "12"); found || err != nil {
		t.Fatalf("untracking an unknown group: %v, %v", found, err)
	}
	if err := s.RememberContacts("4", 300); err != nil {
		t.Fatal(err)
	}
	if known, _ := s.KnownGroups(); known[0].Contacts != 300 {
		t.Errorf("remembered count %d", known[0].Contacts)
	}
	data, _ := config.AuditText(t.Context(), paths)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"error":"group 999 does not exist`) || !strings.Contains(lines[1], `"action":"track_group"`) {
		t.Errorf("audit:\n%s", data)
	}
}

// TestCreateGroupRules: a name or description the service would refuse,
// and a name a known group has (the service's or a local one, any case,
// spaces around), are refused before any request; AllowDuplicate creates
// it all the same, and the new group is remembered with the service's name.
func TestCreateGroupRules(t *testing.T) {
	v := newService(t, sandbox.Options{})
	paths := tempPaths(t)
	s := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
	ctx := context.Background()
	first, err := s.CreateGroup(ctx, NewGroup{Name: " Tehran customers ", Description: "spring"})
	if err != nil || first.Name != "Tehran customers" {
		t.Fatalf("first group: %+v, %v", first, err)
	}
	if err := config.TrackGroup(paths, "live", model.Group{ID: "77", Name: "Night shift"}); err != nil {
		t.Fatal(err)
	}
	before := v.sb.Requests()
	for _, tt := range []struct {
		g    NewGroup
		rule Rule
		want string
	}{
		{NewGroup{Name: "  "}, RuleGroup, "a group needs a name; nothing was created"},
		{NewGroup{Name: strings.Repeat("ن", 101)}, RuleGroup, "group name is 101 characters; the service takes at most 100; nothing was created"},
		{NewGroup{Name: "ok", Description: strings.Repeat("d", 256)}, RuleGroup, "description is 256 characters; the service takes at most 255"},
		{NewGroup{Name: "TEHRAN customers "}, RuleDuplicate, `profile live already has a group named "Tehran customers" on the service: group ` + first.ID.String() + "; nothing was created"},
		{NewGroup{Name: "night shift"}, RuleDuplicate, `profile live already calls group 77 "Night shift" (its name on the service is not known to smsdesk); nothing was created`},
	} {
		_, err := s.CreateGroup(ctx, tt.g)
		var r *Refusal
		if !errors.As(err, &r) || r.Rule != tt.rule || !strings.Contains(r.Reason, tt.want) {
			t.Errorf("%+v: %v, want %s: %s", tt.g, err, tt.rule, tt.want)
			continue
		}
		if tt.rule == RuleDuplicate && (r.Known == nil || r.Name == "" || r.Profile != "live") {
			t.Errorf("%+v: the duplicate's data: %+v", tt.g, r)
		}
	}
	if n := v.sb.Requests() - before; n != 0 {
		t.Fatalf("refused groups made %d requests", n)
	}
	again, err := s.CreateGroup(ctx, NewGroup{Name: "Tehran customers", AllowDuplicate: true})
	if err != nil || again.ID == first.ID {
		t.Fatalf("allowed duplicate: %+v, %v", again, err)
	}
	known, _ := s.KnownGroups()
	if len(known) != 3 || known[2].ID != again.ID || known[2].ServiceName != "Tehran customers" {
		t.Errorf("known groups: %+v", known)
	}
}

// TestAddContactRules: a number that is not a mobile, a foreign one on a
// profile that sends to Iran only and a name over the service's 255
// characters are refused before any request, in the words an import uses;
// a number in another spelling is added as the profile writes numbers.
func TestAddContactRules(t *testing.T) {
	v := newService(t, sandbox.Options{})
	paths := tempPaths(t)
	s := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
	ctx := context.Background()
	g, err := s.CreateGroup(ctx, NewGroup{Name: "spring"})
	if err != nil {
		t.Fatal(err)
	}
	before := v.sb.Requests()
	for _, tt := range []struct{ mobile, name, want string }{
		{"0912abc", "", `mobile "0912abc": `},
		{"+14155550100", "", "foreign number +14155550100: this profile sends to Iranian mobiles only"},
		{"09121110001", strings.Repeat("ن", 256), "name is 256 characters; the service takes at most 255; nothing was added"},
	} {
		_, err := s.AddContact(ctx, g.ID, tt.mobile, tt.name)
		var r *Refusal
		if !errors.As(err, &r) || r.Rule != RuleContact || !strings.Contains(r.Reason, tt.want) {
			t.Errorf("%q %q: %v, want %q", tt.mobile, tt.name, err, tt.want)
		}
	}
	if n := v.sb.Requests() - before; n != 0 {
		t.Fatalf("refused contacts made %d requests", n)
	}
	c, err := s.AddContact(ctx, g.ID, "+98 912 111 0001", strings.Repeat("ن", 255))
	if err != nil || c.Mobile != "09121110001" {
		t.Fatalf("a 255-character name: %+v, %v", c, err)
	}
}

// TestListContactsStopsAtItsLimit: the pages stop once there are enough,
// the group's size is what the service said, and it is remembered for a
// known group; a size that cannot be kept (the groups file damaged, never
// overwritten) is said, not dropped (issue 41 §6: contacts list dropped
// SetGroupContacts's error).
func TestListContactsStopsAtItsLimit(t *testing.T) {
	v := newService(t, sandbox.Options{Seed: true})
	paths := tempPaths(t)
	s := v.session(t, paths, &config.Profile{Name: "live", Sender: sandbox.DefaultSender})
	ctx := context.Background()
	if _, err := s.TrackGroup(ctx, "4", ""); err != nil {
		t.Fatal(err)
	}
	pages := 0
	list, err := s.ListContacts(ctx, "4", ContactsQuery{Limit: 20, Remember: true, OnPage: func(client.ListProgress) { pages++ }})
	if err != nil || len(list.Contacts) != 20 || list.Total <= 20 || list.Remembered != nil {
		t.Fatalf("listed %d of %d (remembered: %v), %v", len(list.Contacts), list.Total, list.Remembered, err)
	}
	if known, _ := s.KnownGroups(); known[0].Contacts != list.Total {
		t.Errorf("remembered %d, want %d", known[0].Contacts, list.Total)
	}
	all, err := s.ListContacts(ctx, "4", ContactsQuery{})
	if err != nil || len(all.Contacts) != all.Total || pages >= 2 && all.Total <= 20 {
		t.Fatalf("every page: %d of %d, %v", len(all.Contacts), all.Total, err)
	}
	file, err := paths.GroupsFile("live")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	list, err = s.ListContacts(ctx, "4", ContactsQuery{Limit: 5, Remember: true})
	if err != nil || list.Remembered == nil {
		t.Fatalf("a damaged groups file: remembered %v, %v; want its error", list.Remembered, err)
	}
}
