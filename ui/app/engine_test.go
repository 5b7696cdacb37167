package app

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"testing"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// TestOpenDemo: the demo engine is a sandbox with its seed, the profile
// "demo" with its sender lines and every seeded group tracked, in a
// temporary directory; its sessions share one client and state, each with
// its own operator; Close removes the directory.
func TestOpenDemo(t *testing.T) {
	eng, err := OpenDemo(ClientOptions{}, DemoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	dir := eng.Paths.StateDir
	if !eng.Demo || eng.Client == nil || eng.Profile.Name != DemoProfile || eng.Profile.Sender == "" || eng.Profile.KeyKind != "test" {
		t.Fatalf("demo engine: %+v", eng)
	}
	known, err := config.LoadGroups(eng.Paths, DemoProfile)
	if err != nil || len(known) == 0 {
		t.Fatalf("seeded groups tracked: %v, %v", known, err)
	}
	sara := &model.Operator{Name: "sara", Role: model.RoleSender}
	eng.Tracker = &SendTracker{}
	a, b := eng.Session(sara), eng.Session(nil)
	sara.Name = "changed"
	if a.Client != b.Client || a.Paths != b.Paths || a.Tracker != eng.Tracker || a.Operator == nil || a.Operator.Name != "sara" || b.Operator != nil {
		t.Fatalf("sessions: %+v / %+v", a, b)
	}
	if _, err := a.Client.ListContacts(context.Background(), known[0].ID, nil); err != nil {
		t.Fatalf("the demo's service: %v", err)
	}
	if err := eng.SaveSenders(append(eng.Profile.Senders, "5000")); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(eng.Paths)
	if err != nil || len(cfg.Profile(DemoProfile).Senders) != len(eng.Profile.Senders)+1 || cfg.Profile(DemoProfile).BaseURL != eng.Profile.BaseURL {
		t.Fatalf("saved senders: %+v, %v", cfg, err)
	}
	eng.Close()
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the demo's directory is left behind: %v", err)
	}
}

// TestOpen: an engine on a profile is offline without a key (no client,
// no key kind) and has a client with one; a base URL the profile does not
// allow is an error, as the client's is.
func TestOpen(t *testing.T) {
	v := newService(t, sandbox.Options{})
	paths := tempPaths(t)
	prof := &config.Profile{Name: "live", Sender: sandbox.DefaultSender}
	off, err := Open(EngineOptions{Paths: paths, ProfileName: "live", Profile: prof, BaseURL: v.baseURL})
	if err != nil || off.Client != nil || off.Profile.KeyKind != "" || off.Session(nil).Client != nil {
		t.Fatalf("offline: %+v, %v", off, err)
	}
	on, err := Open(EngineOptions{Paths: paths, ProfileName: "live", Profile: prof, BaseURL: v.baseURL, Key: v.sb.Key()})
	if err != nil || on.Client == nil || on.Profile.KeyKind != "test" || on.Profile.Sender != sandbox.DefaultSender {
		t.Fatalf("with a key: %+v, %v", on, err)
	}
	if _, err := on.Session(nil).Client.CreateGroup(context.Background(), client.NewGroup{Name: "spring"}); err != nil {
		t.Fatalf("the client: %v", err)
	}
	if _, err := Open(EngineOptions{Paths: paths, ProfileName: "live", Profile: prof, BaseURL: "http://sms.example.com/api/v1", Key: v.sb.Key()}); err == nil {
		t.Error("an http:// base URL without allow_insecure_http opened")
	}
}
