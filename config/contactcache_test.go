package config

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

func TestContactCache(t *testing.T) {
	p := PathsIn(t.TempDir(), t.TempDir())
	const base = "https://sms.example.com/api/v1"
	at := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	list := []model.Contact{{ID: "1", Name: "علی", Mobile: "09121234567"}, {ID: "x-2", Name: "Sara\u200cجان", Mobile: "09351234567"}}

	if _, ok := LoadCachedContacts(p, "default", base, "12"); ok {
		t.Fatal("a cache before any save")
	}
	if err := UpdateCachedContacts(p, "default", base, "12", func(c []model.Contact) []model.Contact { return c }); err != nil {
		t.Fatalf("update without a cache: %v", err)
	}
	if err := SaveCachedContacts(p, "default", base, "12", list, at); err != nil {
		t.Fatal(err)
	}
	got, ok := LoadCachedContacts(p, "default", base, "12")
	if !ok || !got.SavedAt.Equal(at) || fmt.Sprint(got.Contacts) != fmt.Sprint(list) {
		t.Fatalf("load = %v %+v", ok, got)
	}
	path, _ := p.ContactCacheFile("default", "12")
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("cache file mode: %v %v", fi.Mode(), err)
	}
	// Misses: another service, another group, another profile, a damaged file.
	for _, c := range []struct {
		profile, base string
		group         model.ID
	}{{"default", "https://other.example.com/v1", "12"}, {"default", base, "13"}, {"test", base, "12"}} {
		if _, ok := LoadCachedContacts(p, c.profile, c.base, c.group); ok {
			t.Errorf("hit for %+v", c)
		}
	}
	if err := UpdateCachedContacts(p, "default", base, "12", func(c []model.Contact) []model.Contact {
		return append(c, model.Contact{ID: "3", Mobile: "09191234567"})
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := LoadCachedContacts(p, "default", base, "12"); len(got.Contacts) != 3 || !got.SavedAt.Equal(at) {
		t.Errorf("after update: %+v", got)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := LoadCachedContacts(p, "default", base, "12"); ok {
		t.Error("a damaged cache is a hit")
	}
	if err := ForgetCachedContacts(p, "default"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("cache dir after forget: %v", err)
	}
	// Any id makes a safe file name.
	for _, id := range []model.ID{"../../etc/passwd", "a/b", "\x00"} {
		f, err := p.ContactCacheFile("default", id)
		if err != nil || filepath.Dir(f) != filepath.Dir(path) {
			t.Errorf("id %q → %q %v", id, f, err)
		}
	}
}

// BenchmarkCachedContacts3000 is the reopen of a 3,000-contact group from the
// cache (the budget: under 100 ms).
func BenchmarkCachedContacts3000(b *testing.B) {
	p := PathsIn(b.TempDir(), b.TempDir())
	list := make([]model.Contact, 3000)
	for i := range list {
		list[i] = model.Contact{ID: model.ID(fmt.Sprint(i + 1)), Name: fmt.Sprintf("مخاطب شماره %d", i), Mobile: fmt.Sprintf("0912%07d", i)}
	}
	if err := SaveCachedContacts(p, "default", "u", "4", list, time.Now()); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if c, ok := LoadCachedContacts(p, "default", "u", "4"); !ok || len(c.Contacts) != 3000 {
			b.Fatal("miss")
		}
	}
}
