package console

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/smsdesk/smsdesk/model"
)

// bigRoot is a console showing a group of n contacts (half Persian names),
// loaded through the same message the client's answer produces.
func bigRoot(tb testing.TB, n int) *root {
	tb.Helper()
	m := newRoot(tb.Context(), Options{Client: nil, Now: fixedClock})
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
	digit, back := press("5"), tea.KeyMsg{Type: tea.KeyBackspace}
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
	if v := m.View(); !contains(v, "09120000011") || !contains(v, "1 of 100,000") {
		t.Fatalf("frame does not show the match:\n%s", v)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
