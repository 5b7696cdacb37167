package sandbox

import (
	"slices"
	"testing"
)

func TestServer_GroupsAndSenders(t *testing.T) {
	s, err := New(Options{Seed: true, Senders: []string{"999"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	groups := s.Groups()
	if len(groups) != 4 {
		t.Fatalf("seed groups = %d, want 4", len(groups))
	}
	for _, g := range groups {
		if g.ID == "" || g.Name == "" {
			t.Errorf("seed group without id or name: %+v", g)
		}
	}
	senders := s.Senders()
	if !slices.Contains(senders, "999") || !slices.Contains(senders, "3000505") || !slices.IsSorted(senders) {
		t.Errorf("Senders() = %v, want sorted with 999 and the seed's 3000505", senders)
	}
}
