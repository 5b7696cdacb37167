package console

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// bigRoot is a console showing a group of n contacts (half Persian names),
// loaded through the same message the client's answer produces.
func bigRoot(tb testing.TB, n int) *root {
	tb.Helper()
	m := newRoot(tb.Context(), Options{Session: testSession(tb, nil, app.Profile{}), Now: fixedClock})
	m.screen = screenMain
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	cs := make([]model.Contact, n)
	for i := range cs {
		name := fmt.Sprintf("Subscriber %06d", i)
		if i%2 == 1 {
			name = fmt.Sprintf("مشترک شماره %06d", i)
		}
		cs[i] = model.Contact{ID: model.ID(fmt.Sprint(i + 1)), Name: name, Mobile: fmt.Sprintf("0912%07d", i)}
	}
	g := model.Group{ID: "9", Name: "Big"}
	m.contacts.group, m.contacts.loadID = g, 1
	m.Update(contactsLoadedMsg{GroupID: "9", LoadID: 1, Contacts: cs})
	m.Update(press("tab"))
	if len(m.contacts.index) != n {
		tb.Fatalf("loaded %d rows, want %d", len(m.contacts.index), n)
	}
	return m
}

// BenchmarkKeystrokeToFrame_Scroll: one ↓ and the frame it produces, 100k contacts.
func BenchmarkKeystrokeToFrame_Scroll(b *testing.B) {
	m := bigRoot(b, 100_000)
	down := press("down")
	b.ReportAllocs()
	for b.Loop() {
		m.Update(down)
		_ = m.View()
	}
}

// BenchmarkKeystrokeToFrame_Filter: one keystroke in the filter (alternately a
// digit, which narrows the matches, and backspace, which rescans all 100k
// rows) and the frame it produces.
func BenchmarkKeystrokeToFrame_Filter(b *testing.B) {
	m := bigRoot(b, 100_000)
	m.Update(press("/"))
	for _, r := range "0912" {
		m.Update(press(string(r)))
	}
	digit, back := press("5"), press("backspace")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			m.Update(digit)
		} else {
			m.Update(back)
		}
		i++
		_ = m.View()
	}
}

func TestFilterLargeGroup(t *testing.T) {
	t.Parallel()
	m := bigRoot(t, 100_000)
	m.send("/")
	for _, r := range "مشترک" {
		m.Update(press(string(r)))
	}
	if got := len(m.contacts.index); got != 50_000 {
		t.Fatalf("filter مشترک: %d matches, want 50000", got)
	}
	for _, r := range "۰۰۰۰۱۱" { // Persian digits match ASCII ones
		m.Update(press(string(r)))
	}
	if got := len(m.contacts.index); got != 0 {
		// "مشترک" + "000011" never occur together: the name has a space before the number.
		t.Fatalf("narrowed filter: %d matches, want 0", got)
	}
	m.send("esc")
	m.send("/")
	for _, r := range "۰۹۱۲۰۰۰۰۰۱۱" {
		m.Update(press(string(r)))
	}
	if got := len(m.contacts.index); got != 1 || m.contacts.rows[m.contacts.index[0]].mobile != "09120000011" {
		t.Fatalf("filter by Persian-digit number: %d matches", got)
	}
	if v := m.text(); !contains(v, "09120000011") || !contains(v, "1 of 100,000") {
		t.Fatalf("frame does not show the match:\n%s", v)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// The filter forgives Persian spelling and number prefixes: "علی" finds
// "علي", "كريمي" finds "کریمی", "+98912" finds "0912…", ZWNJ is optional.
func TestFilterFoldsPersian(t *testing.T) {
	t.Parallel()
	m := newRoot(t.Context(), Options{Session: testSession(t, nil, app.Profile{}), Now: fixedClock})
	m.screen = screenMain
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.contacts.group, m.contacts.loadID = model.Group{ID: "9", Name: "G"}, 1
	m.Update(contactsLoadedMsg{GroupID: "9", LoadID: 1, Contacts: []model.Contact{
		{ID: "1", Name: "علي رضايي", Mobile: "09121234567"},
		{ID: "2", Name: "کریمی", Mobile: "09351112233"},
		{ID: "3", Name: "نیلوفر خوش\u200cنویس", Mobile: "09901234567"},
	}})
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"علی", []string{"1"}},
		{"رضایی", []string{"1"}},
		{"كريمي", []string{"2"}},
		{"خوشنویس", []string{"3"}},
		{"+98912", []string{"1"}},
		{"0098935", []string{"2"}},
		{"۰۹۹۰", []string{"3"}},
	} {
		m.contacts.filter.SetValue(tc.query)
		m.contacts.applyFilter()
		var got []string
		for _, i := range m.contacts.index {
			got = append(got, string(m.contacts.rows[i].contact.ID))
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("filter %q: %v, want %v", tc.query, got, tc.want)
		}
	}
}

// BenchmarkReopenFromCache3000: enter on a group of 3,000 contacts listed
// before, to the frame that shows them from the cache (the read of the cache
// file, the rows built, the frame drawn); the refresh's request is not counted
// (it is started, and cancelled, with no client).
func BenchmarkReopenFromCache3000(b *testing.B) {
	dir := b.TempDir()
	paths := config.PathsIn(dir+"/config", dir+"/state")
	b.Cleanup(func() { paths.CloseLedger() })
	const base = "https://sms.example.com/v1"
	cs := make([]model.Contact, 3000)
	for i := range cs {
		cs[i] = model.Contact{ID: model.ID(fmt.Sprint(i + 1)), Name: fmt.Sprintf("مشترک شماره %06d", i), Mobile: fmt.Sprintf("0912%07d", i)}
	}
	if err := config.SaveCachedContacts(paths, "test", base, "9", cs, fixedNow); err != nil {
		b.Fatal(err)
	}
	cl, err := client.New("http://127.0.0.1:1/api/v1", "sk_test_bench")
	if err != nil {
		b.Fatal(err)
	}
	m := newRoot(b.Context(), Options{Session: (&app.Engine{Client: cl, Paths: paths, Profile: app.Profile{Name: "test", BaseURL: base}}).Session(nil),
		Now: fixedClock})
	m.screen = screenMain
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	g := model.Group{ID: "9", Name: "Big"}
	for b.Loop() {
		read := m.contacts.open(g)
		msg := read().(contactsCachedMsg)
		m.contacts.cached(msg)
		m.contacts.stopLoad()
		if len(m.contacts.rows) != 3000 || !strings.Contains(m.text(), "مشترک شماره 000000") {
			b.Fatal("not shown from the cache")
		}
	}
}
