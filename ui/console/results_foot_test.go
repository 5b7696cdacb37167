package console

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestResultsFootNeverCutsItsWords (issue 40 item 4): the results' last
// line said why a send stopped and what to do next cut to its width: at
// 80 columns "stopped: the service refused (POST /sms/send-pair: 402
// insufficient_credit: …" and never came to "top up the account, then R
// sends the rest". It wraps on up to three lines, the table giving them
// room, and the screen still fits.
func TestResultsFootNeverCutsItsWords(t *testing.T) {
	t.Parallel()
	for _, size := range issueSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, sandbox.Options{})
			var posts atomic.Int32
			e.opts.Session.Client = creditRunsOut(t, e, &posts)
			e.opts.Session.Profile.ChunkSize = 2
			tm := e.startOnGroup1At(t, size[0], size[1])
			writeTemplate(t, tm, "Hello {name|friend}", 8)
			tm.Send(press("ctrl+s"))
			waitFor(t, tm, "Send these messages?")
			tm.Send(press("y"))
			var frame, note string
			waitModel(t, tm, "the send stopped", func(m *root) bool {
				frame, note = m.text(), m.results.note
				return m.results.summary != nil && !m.results.sending && !m.results.polling && strings.HasPrefix(note, "stopped:")
			})
			if !strings.HasSuffix(note, "; top up the account, then R sends the rest") {
				t.Fatalf("the stop's note %q does not say what to do next", note)
			}
			// Once (issue 40): it said the service's "top up and send
			// again" before its own words.
			if want := "stopped: the account has run out of credit (402 insufficient_credit); top up the account, then R sends the rest"; note != want {
				t.Errorf("the stop's note is %q, want %q", note, want)
			}
			if !strings.Contains(flat(frame), flat(note)) {
				t.Errorf("the stop is not said whole, %q:\n%s", note, frame)
			}
			fitsWhole(t, frame, size[0], size[1])
			requireGolden(t, jobID.ReplaceAllString(frame, "${1}XXXXXX"))
		})
	}
}

// creditRunsOut is a client for e's sandbox whose account has no credit
// left from the second send-pair request on (counted in posts): that
// chunk is refused 402 and the send stops.
func creditRunsOut(t *testing.T, e *env, posts *atomic.Int32) *client.Client {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/sms/send-pair") && posts.Add(1) == 2 {
			e.srv.SetCredit(0)
		}
		e.srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	cl, err := client.New(ts.URL+"/api/v1", e.srv.Key(), client.WithRatePerMinute(60000), heldRequests)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}
