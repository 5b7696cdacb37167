package console

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// hostile is what a hostile service or file puts after its text: a
// clipboard write (OSC 52, its payload "pwned"), erase display, the 8-bit
// CSI, a right-to-left override, a left-to-right isolate, and a lone ESC at
// the end. Each sequence sits between « and », which stay as «» when the
// sequence is neutralised.
const hostile = "«\x1b]52;c;cHduZWQ=\x07»«\x1b[2J»«\u009b2J»«\u202e»«\u2066»\x1b"

// hostileRaw are the pieces of hostile that must never reach the terminal.
// In the program's output, erase display is looked for with the » after it:
// the renderer erases the screen itself when it starts.
var hostileRaw = []string{"\x1b]52", "cHduZWQ", "\x1b[2J", "\u009b", "\u202e", "\u2066"}

// hostileOut is hostileRaw as the program's output is searched.
var hostileOut = []string{"\x1b]52", "cHduZWQ", "\x1b[2J»", "\u009b", "\u202e", "\u2066"}

// hostileService rewrites the sandbox's answers as a hostile service would
// write them: every contact name, group 2's numbers, every message id and
// every refusal's words end in hostile; the second item of every send is
// rejected with words that do; group 3's contacts answer an error that does.
func hostileService(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/contact-groups/3/") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_ = json.NewEncoder(w).Encode(map[string]any{"success": false, "error_code": "not_found", "message": "no such group" + hostile})
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		var v any
		if json.Unmarshal(body, &v) == nil {
			sendAnswer := strings.HasSuffix(r.URL.Path, "/sms/send-pair")
			v = poison(v, "", strings.Contains(r.URL.Path, "/contact-groups/2/"), sendAnswer)
			body, _ = json.Marshal(v)
		}
		for k, vs := range rec.Header() {
			if k != "Content-Length" {
				w.Header()[k] = vs
			}
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
}

// poison appends hostile to the strings a service's answer shows the
// operator (see hostileService).
func poison(v any, key string, numbers, send bool) any {
	switch v := v.(type) {
	case map[string]any:
		if send && v["status"] == "accepted" && v["index"] == float64(1) {
			v["status"], v["error_code"], v["message"] = "rejected", "blocked", "the number is blocked"+hostile
			delete(v, "message_id")
		}
		for k, x := range v {
			v[k] = poison(x, k, numbers, send)
		}
		return v
	case []any:
		for i, x := range v {
			v[i] = poison(x, key, numbers, send)
		}
		return v
	case string:
		switch {
		case key == "name", key == "message_id", key == "message" && v != "", key == "mobile" && numbers:
			return v + hostile
		}
	}
	return v
}

// TestServiceTextNeverReachesTheTerminalRaw drives the console through
// every screen with a hostile service's and a hostile file's text in every
// string it shows: group and contact names, numbers, messages from a pairs
// file, message ids, refusals and errors, an import file's rows. No escape
// sequence, 8-bit control or bidi override of theirs reaches the terminal:
// not in any frame the console draws (whose only escape sequences are its
// styles' SGR), not in the bytes the program writes, and the text shows
// them neutralised («» where a sequence was).
func TestServiceTextNeverReachesTheTerminalRaw(t *testing.T) {
	t.Parallel()
	e := newEnvBehind(t, sandbox.Options{}, hostileService)
	sess := e.opts.Session
	// The groups file is a file too: names kept there are shown as well.
	if err := config.TrackGroup(sess.Paths, "test", model.Group{ID: "1", Name: "Tehran" + hostile}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pairs := filepath.Join(dir, "pairs.csv")
	if err := os.WriteFile(pairs, []byte("mobile,message\n09121110001,Hello"+hostile+"\n0912"+hostile+",Hi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	people := filepath.Join(dir, "people.csv")
	if err := os.WriteFile(people, []byte("mobile,name\n09125550001,Omid"+hostile+"\nnot-a-number"+hostile+",Bad"+hostile+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	tm := e.start(t)
	screens := map[string]string{} // the raw frame of each screen
	shot := func(name string, cond func(m *root) bool) {
		t.Helper()
		waitModel(t, tm, name, func(m *root) bool {
			if !cond(m) {
				return false
			}
			screens[name] = m.frame()
			return true
		})
	}
	shot("main: names", func(m *root) bool { return len(m.contacts.rows) == 8 && !m.contacts.loading })
	tm.Send(press("down"))
	tm.Send(press("enter"))
	shot("main: numbers", func(m *root) bool {
		return m.contacts.group.ID == "2" && !m.contacts.loading && len(m.contacts.rows) > 0
	})
	tm.Send(press("down"))
	tm.Send(press("enter"))
	shot("main: an error", func(m *root) bool { return m.contacts.group.ID == "3" && m.contacts.err != "" })
	tm.Send(press("L"))
	shot("message log", func(m *root) bool { return m.screen == screenViewer })
	tm.Send(press("esc"))
	tm.Send(press("up"))
	tm.Send(press("up"))
	tm.Send(press("enter"))
	waitModel(t, tm, "group 1 again", func(m *root) bool {
		return m.contacts.group.ID == "1" && !m.contacts.loading && len(m.contacts.rows) == 8
	})

	tm.Send(press("c"))
	waitModel(t, tm, "composer", func(m *root) bool { return m.screen == screenComposer && m.composer.Editing() })
	typeText(tm, "Hi {name}")
	tm.Send(press("esc"))
	tm.Send(press("o"))
	waitModel(t, tm, "file form", func(m *root) bool { return m.modal != nil })
	typeText(tm, pairs)
	tm.Send(press("enter"))
	shot("composer: a file's messages", func(m *root) bool { return m.modal == nil && m.composer.source == sourceCSV && m.composer.plan != nil })
	tm.Send(press("ctrl+s"))
	shot("composer: the file refused", func(m *root) bool { return strings.Contains(m.composer.note, "cannot be sent") })
	tm.Send(press("m"))
	waitModel(t, tm, "the template again", func(m *root) bool { return m.composer.source == sourceTemplate })
	tm.Send(press("esc"))
	shot("composer: the template over names", func(m *root) bool {
		return m.composer.plan != nil && len(m.composer.plan.Items) == 8 && m.composer.plan.OK() && !m.composer.Editing()
	})
	tm.Send(press("ctrl+s"))
	shot("confirm", func(m *root) bool { _, ok := m.modal.(*confirm); return ok })
	tm.Send(press("y"))
	shot("results", func(m *root) bool {
		return m.screen == screenResults && m.results.summary != nil && !m.results.sending && !m.results.polling
	})
	tm.Send(press("down"))
	tm.Send(press("enter"))
	shot("viewer: a rejected recipient", func(m *root) bool { return m.screen == screenViewer })
	tm.Send(press("esc"))
	tm.Send(press("esc"))
	waitModel(t, tm, "main", func(m *root) bool { return m.screen == screenMain })
	tm.Send(press("h"))
	shot("history", func(m *root) bool {
		return m.screen == screenHistory && !m.history.loading && len(m.history.entries) == 1
	})
	tm.Send(press("enter"))
	shot("history detail", func(m *root) bool {
		return m.history.detail != nil && m.history.detail.state != nil && !m.history.detail.loading
	})
	tm.Send(press("esc"))
	tm.Send(press("esc"))
	waitModel(t, tm, "main", func(m *root) bool { return m.screen == screenMain })
	tm.Send(press("tab"))
	tm.Send(press("i"))
	waitModel(t, tm, "import form", func(m *root) bool { return m.modal != nil })
	typeText(tm, people)
	tm.Send(press("enter"))
	shot("import preview", func(m *root) bool {
		d, ok := m.modal.(*confirm)
		return ok && strings.Contains(d.body, "line 3")
	})
	tm.Send(press("esc"))
	tm.Send(press("L"))
	shot("message log at the end", func(m *root) bool { return m.screen == screenViewer })

	// Screens whose hostile text is cut before its sequences (the error
	// line; the message log shows it whole) or that show none (history's
	// list: ids, times, the profile's sender).
	hidden := map[string]bool{"main: an error": true, "history": true}
	for name, frame := range screens {
		// The frame's only escape sequences are the styles' SGR.
		for i := 0; i < len(frame); i++ {
			if frame[i] == 0x1b {
				n := sgrLen(frame, i)
				if n == 0 {
					t.Errorf("%s: an escape sequence other than SGR at byte %d: %q", name, i, frame[i:min(len(frame), i+12)])
					break
				}
				i += n - 1
			}
		}
		for _, raw := range hostileRaw {
			if strings.Contains(frame, raw) {
				t.Errorf("%s: the frame holds %q", name, raw)
			}
		}
		if hidden[name] {
			continue
		}
		if text := drawIn(frame, 0); !strings.Contains(text, "«»«»«»«»«»") {
			t.Errorf("%s: the hostile text is not shown neutralised:\n%s", name, text)
		}
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(tm.FinalOutput(t, teatest.WithFinalTimeout(waitLimit)))
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range hostileOut {
		if bytes.Contains(out, []byte(raw)) {
			t.Errorf("the program wrote %q to the terminal", raw)
		}
	}
	if !bytes.Contains(out, []byte("«»")) {
		t.Error("the program's output does not show the hostile text at all: the test proves nothing")
	}
}

// TestHelpersCleanWhatTheyAreGiven: the helpers where text meets the
// screen clean it, so a caller need not: fit, fitRight and fitText cut a
// hostile string to clean cells; cleanFrame keeps a style's SGR and removes
// the rest; a dialog and a form clean their title and text.
func TestHelpersCleanWhatTheyAreGiven(t *testing.T) {
	t.Parallel()
	c := &common{styles: DefaultStyles(DarkTheme), keys: DefaultKeyMap()}
	styled := "\x1b[1mbold\x1b[m"
	cases := []struct {
		name, got, want string
	}{
		{"fit", fit("a"+hostile, 14), "a«»«»«»«»«»   "},
		{"fit cuts", fit("a"+hostile, 4), "a«»…"},
		{"fitRight", fitRight("a"+hostile, 14), "   a«»«»«»«»«»"},
		{"fitText", fitText("a"+hostile, 14, true), "a«»«»«»«»«»   "},
		{"fit of a line", fit("a\nb\tc", 6), "a b c "},
		{"cleanFrame keeps SGR", cleanFrame(styled + "a" + hostile + "\n" + styled), styled + "a«»«»«»«»«»\n" + styled},
		{"cleanFrame of clean text", cleanFrame(styled), styled},
		{"confirm title", newConfirm(c, "t"+hostile, "", nil).title, "t«»«»«»«»«»"},
		{"confirm body", newConfirm(c, "", "b"+hostile+"\nnext", nil).body, "b«»«»«»«»«»\nnext"},
		{"form title", newForm(c, "t"+hostile, "h"+hostile, nil).title, "t«»«»«»«»«»"},
		{"form hint", newForm(c, "t", "h"+hostile, nil).hint, "h«»«»«»«»«»"},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}
