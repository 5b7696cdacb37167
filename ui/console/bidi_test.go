package console

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
)

// persianRefusal answers every send-pair with a refusal in Persian, so the
// results table has right-to-left reasons.
func persianRefusal(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = w.Write([]byte(`{"success":false,"error_code":"invalid_recipient","message":"شماره در فهرست سیاه است (کد 48)"}`))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// TestBidiGoldens: the main screen, the composer and the results over
// Persian and mixed text, with bidi off (logical order, for terminals that
// reorder) and visual (smsdesk reorders each cell).
func TestBidiGoldens(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"off", "visual"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t, sandbox.Options{})
			srv := httptest.NewServer(persianRefusal(e.srv.Handler()))
			t.Cleanup(srv.Close)
			cl, err := client.New(srv.URL+"/api/v1", e.srv.Key(), client.WithRatePerMinute(60000), heldRequests)
			if err != nil {
				t.Fatal(err)
			}
			e.client, e.opts.Session.Client = cl, cl
			e.opts.BidiVisual = mode == "visual"
			tm := e.startOnGroup1(t)
			var frame string
			waitModel(t, tm, "main", func(m *root) bool { frame = m.text(); return true })
			if visual := strings.Contains(frame, "ییاضر یلع"); visual != (mode == "visual") {
				t.Errorf("bidi %s: the name علی رضایی reversed on screen: %v", mode, visual)
			}
			namedGolden(t, "main", frame)

			writeTemplate(t, tm, "سلام {name}، کد شما 48213 است", 8)
			tm.Send(press("esc"))
			waitFor(t, tm, "Totals: 8 recipients")
			waitModel(t, tm, "composer frame", func(m *root) bool { frame = m.text(); return true })
			namedGolden(t, "composer", frame)

			tm.Send(press("ctrl+s"))
			waitFor(t, tm, "Send these messages?")
			waitModel(t, tm, "confirm frame", func(m *root) bool { frame = m.text(); return true })
			if visual := strings.Contains(frame, "نارهت نایرتشم"); visual != (mode == "visual") {
				t.Errorf("bidi %s: the confirmation's group name reversed: %v", mode, visual)
			}
			if strings.Contains(frame, "unknown kind of key") { // issue 40 item 18: a key of no known kind says nothing of it
				t.Errorf("bidi %s: the confirmation says %q", mode, "unknown kind of key")
			}
			namedGolden(t, "confirm", frame)
			tm.Send(press("y"))
			waitModel(t, tm, "refused", func(m *root) bool {
				return m.screen == screenResults && m.results.summary != nil && !m.results.sending && !m.results.polling
			})
			namedGolden(t, "results", jobID.ReplaceAllString(finalView(t, tm), "${1}XXXXXX"))
		})
	}
}

// TestBidiKeySwitchesAndSaves: B switches the order live, says so, and saves
// the setting; the stored and sent text never changes.
func TestBidiKeySwitchesAndSaves(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	var mu sync.Mutex
	var saved []string
	e.opts.SaveBidi = func(mode string) error { mu.Lock(); saved = append(saved, mode); mu.Unlock(); return nil }
	tm := e.startOnGroup1(t)
	tm.Send(press("B"))
	waitModel(t, tm, "visual", func(m *root) bool {
		return m.c.bidi && strings.Contains(m.text(), "ییاضر یلع") && strings.Contains(m.note, "bidi = visual")
	})
	tm.Send(press("B"))
	waitModel(t, tm, "off again", func(m *root) bool {
		return !m.c.bidi && strings.Contains(m.text(), "علی رضایی") && strings.Contains(m.note, "bidi = off")
	})
	waitModel(t, tm, "saved", func(m *root) bool {
		mu.Lock()
		defer mu.Unlock()
		return len(saved) >= 1 && saved[len(saved)-1] == "off" // the last choice is what stays stored
	})
	waitModel(t, tm, "stored text untouched", func(m *root) bool {
		return m.contacts.allContacts()[0].Name == "علی رضایی" && m.contacts.allContacts()[0].Name == model.SanitizeLine("علی رضایی")
	})
	finalView(t, tm)
}

// TestComposerTemplateInDisplayOrder: with bidi = visual the template reads
// in display order once the editor is left, each wrapped line reordered on
// its own; while typing it stays in the stored (logical) order.
func TestComposerTemplateInDisplayOrder(t *testing.T) {
	t.Parallel()
	words := []string{"اول", "دوم", "سوم", "چهارم", "پنجم", "ششم", "هفتم", "هشتم", "نهم", "دهم"}
	var text []string
	for range 3 {
		text = append(text, words...)
	}
	template := strings.Join(text, " ") // 3 × 10 words: wraps at 100 columns
	for _, visual := range []bool{false, true} {
		t.Run(fmt.Sprint("visual ", visual), func(t *testing.T) {
			m := newBareRoot(t)
			m.c.bidi = visual
			m.send("c")
			for _, r := range template {
				m.Update(typed(string(r)))
			}
			typing := m.composer.editorLines()
			if !strings.Contains(typing[0], "اول دوم") {
				t.Errorf("while typing, line 1 %q is not in the stored order", typing[0])
			}
			m.send("esc")
			left := m.composer.editorLines()
			if len(left) != 3 {
				t.Fatalf("%d editor lines, want 3", len(left))
			}
			first, second := left[0], left[1]
			if visual {
				// Display order: the line's first word (اول) is at its right end,
				// reversed; the wrap happened before reordering, so the last word
				// (دهم) is on the second line.
				if !strings.Contains(first, "مود لوا") || strings.HasSuffix(strings.TrimSpace(first), "┃") {
					t.Errorf("line 1 %q is not in display order", first)
				}
				if !strings.Contains(second, "مهد") {
					t.Errorf("line 2 %q does not hold the wrapped rest", second)
				}
			} else if !strings.Contains(first, "اول دوم") || !strings.Contains(second, "دهم") {
				t.Errorf("bidi off: lines %q, %q not in stored order", first, second)
			}
		})
	}
}
