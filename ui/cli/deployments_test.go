package cli

// The CLI against independent deployments of the service. fakeService is written
// from the service's public description (BRIEF.md, issue 2), not from the client
// or the sandbox: each deployment differs in body shapes, paging, id types, the
// base URL form operators paste, error bodies, DELETE answers, rate limits and
// send-pair answers. It ignores Idempotency-Key on purpose, and counts every
// create and every processed pair, so that anything sent twice shows.

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newDeploymentWorld starts d on loopback and points a CLI world at it, with a
// profile paced at ratePerMinute.
func newDeploymentWorld(t *testing.T, d deployment, ratePerMinute int) (*cliWorld, *fakeService) {
	t.Helper()
	f := newFakeService(d)
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "config", "config.toml"), fmt.Sprintf("active = \"default\"\n[profiles.default]\nrate_per_minute = %d\n", ratePerMinute))
	base := srv.URL + d.base
	return &cliWorld{t: t, baseURL: base, dir: dir, env: map[string]string{
		"SMSDESK_BASE_URL": base, "SMSDESK_API_KEY": testKey,
		"SMSDESK_CONFIG_DIR": filepath.Join(dir, "config"), "SMSDESK_STATE_DIR": filepath.Join(dir, "state"),
	}}, f
}

// cliRecord is a record in the CLI's --json output, with the id kept raw.
type cliRecord struct {
	ID     json.RawMessage `json:"id"`
	Name   string          `json:"name"`
	Mobile string          `json:"mobile"`
}

// checkID fails unless raw is the service's id, exactly, as the same JSON type.
func checkID(t *testing.T, what string, raw json.RawMessage, want string, d deployment) {
	t.Helper()
	got, quoted := string(raw), strings.HasPrefix(string(raw), `"`)
	if quoted {
		_ = json.Unmarshal(raw, &got)
	}
	if got != want || quoted != (d.ids == "string") {
		t.Errorf("%s: the CLI printed id %s, the service gave %q (as a %s)", what, raw, want, d.ids)
	}
}

func decodeOut[T any](t *testing.T, what, out string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%s: stdout is not JSON (%v):\n%s", what, err, out)
	}
	return v
}

func (f *fakeService) wantMobile(m string) string {
	if f.d.e164 {
		return "+98" + m[1:]
	}
	return m
}

func TestDeployments_EveryCommandOnEveryShape(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		d    deployment
	}{
		{"a documented envelope, /v1 base, meta-links, int ids", deployment{mount: "/v1", base: "/v1", wrap: "envelope", ids: "int",
			contactKey: "id", paging: "meta", errors: "envelope", send: "index"}},
		{"b bare, host-only base, string ids, contact_id, null names, 204, page numbers", deployment{mount: "/api/v1", base: "", wrap: "bare",
			ids: "string", contactKey: "contact_id", nullNames: true, paging: "pages", delete204: true, errors: "errorobj", send: "by-recipient"}},
		{"c data, /api/ base, huge ids, nested paginator, E.164 mobiles", deployment{mount: "/api/v1", base: "/api/", wrap: "data", ids: "huge",
			contactKey: "id", e164: true, paging: "nested", errors: "laravel", send: "batch"}},
		{"c2 bare arrays, /api base, huge ids, Link header", deployment{mount: "/api/v1", base: "/api", wrap: "bare", ids: "huge",
			contactKey: "id", paging: "link", errors: "problem", send: "index"}},
		{"v1 trailing slash, data wrapper, string ids", deployment{mount: "/api/v1", base: "/api/v1/", wrap: "data", ids: "string",
			contactKey: "id", paging: "meta", delete204: true, errors: "envelope", send: "by-recipient"}},
	} {
		t.Run(tt.name, func(t *testing.T) { everyCommand(t, tt.d) })
	}
}

func everyCommand(t *testing.T, d deployment) {
	w, f := newDeploymentWorld(t, d, 6000)
	// No credit endpoint and no group known yet: nothing answers 2xx, so the
	// key is not refused but not accepted either (no ✓), exit 1.
	out, _, code := w.run("", "status", "--json")
	if st := decodeOut[statusReport](t, "status --json", out); st.Accepted || code != ExitService || !strings.Contains(st.ServiceError, "nothing at this base URL answered as the API") {
		t.Fatalf("status before a group is known: exit %d, %+v", code, st)
	}

	g := decodeOut[cliRecord](t, "groups create", mustRun(t, w, "groups", "create", "Tehran customers", "--description", "spring", "--json"))
	f.mu.Lock()
	var gids []string
	for id := range f.groups {
		gids = append(gids, id)
	}
	f.mu.Unlock()
	if len(gids) != 1 {
		t.Fatalf("the service has %d groups, want 1", len(gids))
	}
	gid := gids[0]
	checkID(t, "groups create --json", g.ID, gid, d)
	if g.Name != "Tehran customers" {
		t.Errorf("groups create --json name = %q", g.Name)
	}
	known := decodeOut[[]cliRecord](t, "groups list", mustRun(t, w, "groups", "list", "--json"))
	if len(known) != 1 {
		t.Fatalf("groups list --json = %+v", known)
	}
	checkID(t, "groups list --json", known[0].ID, gid, d)
	// A known group's list answers 2xx: the key is accepted.
	if st := decodeOut[statusReport](t, "status --json", mustRun(t, w, "status", "--json")); !st.Accepted {
		t.Fatalf("status: the key was not accepted: %+v", st)
	}

	sara := decodeOut[cliRecord](t, "contacts add", mustRun(t, w, "contacts", "add", gid, "+98 912 123 4567", "--name", "Sara", "--json"))
	anon := decodeOut[cliRecord](t, "contacts add", mustRun(t, w, "contacts", "add", gid, "09351234567", "--json"))
	csv := filepath.Join(w.dir, "contacts.csv")
	writeFile(t, csv, "mobile,name\n09121110001,رضا\n09121110002,Ali\n09121110003,\n09121110004,Mina\n09121110005,Omid\n")
	if out := mustRun(t, w, "contacts", "import", gid, csv); !strings.Contains(out, "Imported 5 of 5") {
		t.Errorf("contacts import: %s", out)
	}

	server, _, _, _ := f.snapshot()
	if len(server) != 7 {
		t.Fatalf("the service holds %d contacts, want 7", len(server))
	}
	checkID(t, "contacts add --json", sara.ID, server[0].id, d)
	checkID(t, "contacts add --json", anon.ID, server[1].id, d)
	if sara.Name != "Sara" || sara.Mobile != f.wantMobile("09121234567") || anon.Name != "" || anon.Mobile != f.wantMobile("09351234567") {
		t.Errorf("contacts add --json: %+v and %+v", sara, anon)
	}

	list := decodeOut[[]cliRecord](t, "contacts list", mustRun(t, w, "contacts", "list", gid, "--json"))
	if len(list) != len(server) {
		t.Fatalf("contacts list --json: %d contacts over the pages, the service holds %d", len(list), len(server))
	}
	for i, c := range list {
		checkID(t, fmt.Sprintf("contacts list --json [%d]", i), c.ID, server[i].id, d)
		if c.Name != server[i].name || c.Mobile != server[i].mobile {
			t.Errorf("contacts list --json [%d] = %q %q, the service has %q %q", i, c.Name, c.Mobile, server[i].name, server[i].mobile)
		}
	}
	table := mustRun(t, w, "contacts", "list", gid) // to a pipe: tab-separated, no header
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	if len(lines) != len(server) {
		t.Fatalf("contacts list (table):\n%s", table)
	}
	for i, c := range server {
		if cells := strings.Split(lines[i], "\t"); len(cells) != 3 || cells[0] != c.id || cells[2] != c.mobile {
			t.Errorf("table row %d = %q, want id %s and mobile %s", i+1, lines[i], c.id, c.mobile)
		}
	}

	out = mustRun(t, w, "contacts", "delete", server[0].id, server[3].id, "--yes")
	if !strings.Contains(out, "deleted "+server[0].id) || !strings.Contains(out, "deleted "+server[3].id) {
		t.Errorf("contacts delete: %s", out)
	}
	if list = decodeOut[[]cliRecord](t, "contacts list", mustRun(t, w, "contacts", "list", gid, "--json")); len(list) != 5 {
		t.Errorf("after deleting two: %d contacts", len(list))
	}

	pairs := filepath.Join(w.dir, "pairs.csv")
	writeFile(t, pairs, "recipient,message\n09121110001,سلام رضا\n09121110002,Hello Ali\n09351234567,کد شما ۱۲۳۴\n")
	rep := decodeOut[sendPairJSON](t, "send-pair", mustRun(t, w, "send-pair", "--sender", fakeSender, "--file", pairs, "--yes", "--json"))
	checkSendReport(t, f, rep, map[string]string{})
	if d.send != "batch" {
		show := decodeOut[historyShowJSON](t, "history show", mustRun(t, w, "history", "show", rep.sendID(), "--refresh", "--json"))
		for _, r := range show.Results {
			if r.Delivery != "delivered" {
				t.Errorf("history show --refresh: %s delivery %q, the service says delivered", r.Recipient, r.Delivery)
			}
		}
	}
	if dup := f.twice(); len(dup) > 0 {
		t.Errorf("sent twice: %v", dup)
	}
}

// checkSendReport compares a send-pair --json report with what the service
// processed: accepted items carry the service's message id and went once;
// rejected ones (want[recipient] = "rejected") never went.
func checkSendReport(t *testing.T, f *fakeService, rep sendPairJSON, want map[string]string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := map[string]string{}
	for id, rc := range f.messages {
		ids[rc] = id
	}
	for _, r := range rep.Results {
		st := cmpOr(want[r.Recipient], "accepted")
		n := f.sent[r.Recipient+"\x00"+r.Message]
		if r.Status != st {
			t.Errorf("%s: status %q (%s), want %q", r.Recipient, r.Status, r.Error, st)
		}
		switch st {
		case "accepted":
			if n != 1 || (f.d.send != "batch" && r.MessageID != ids[r.Recipient]) {
				t.Errorf("%s accepted as %q; the service processed it %d times as %q", r.Recipient, r.MessageID, n, ids[r.Recipient])
			}
		case "rejected":
			if n != 0 || !strings.Contains(r.Error, "blacklisted") {
				t.Errorf("%s rejected (%q) but processed %d times", r.Recipient, r.Error, n)
			}
		}
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func TestDeployments_ErrorBodies(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, errors, msg401 string
		proxy                bool
	}{
		{"RFC 9457 problem+json", "problem", "The API key is not valid.", false},
		{"Laravel message and errors", "laravel", "The API key is not valid.", false},
		{"error object", "errorobj", "The API key is not valid.", false},
		{"HTML 502 from a proxy", "envelope", "The API key is not valid.", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := deployment{mount: "/api/v1", base: "/api/v1", wrap: "envelope", ids: "int", contactKey: "id", paging: "meta",
				errors: tt.errors, proxy502: tt.proxy, send: "index"}
			w, f := newDeploymentWorld(t, d, 6000)
			gid := strings.TrimSpace(mustRun(t, w, "groups", "create", "Errors"))

			_, errOut, code := w.run("", "contacts", "add", "424242", "09121234567")
			if code != ExitService || !strings.Contains(errOut, "422") || !strings.Contains(errOut, "The selected group is invalid.") {
				t.Errorf("add to a group the service does not know: exit %d, stderr %q; want 1 naming 422 and the message", code, errOut)
			}
			_, errOut, code = w.run("", "contacts", "delete", "31337", "--yes")
			if code != ExitService || !strings.Contains(errOut, "404") || !strings.Contains(errOut, "Contact not found.") {
				t.Errorf("delete a missing contact: exit %d, stderr %q", code, errOut)
			}
			_, _, before, _ := f.snapshot()
			if _, errOut, code = w.run("", "contacts", "add", gid, "12345"); code != ExitUsage || !strings.Contains(errOut, "12345") {
				t.Errorf("invalid mobile: exit %d, stderr %q; want 2", code, errOut)
			}
			if _, errOut, code = w.run("", "contacts", "list"); code != ExitUsage || errOut == "" {
				t.Errorf("missing argument: exit %d, stderr %q; want 2", code, errOut)
			}
			if _, _, after, _ := f.snapshot(); after != before {
				t.Errorf("usage errors reached the service (%d requests)", after-before)
			}
			if tt.proxy {
				_, errOut, code = w.run("", "contacts", "add", gid, proxyTrigger)
				if code != ExitService || !strings.Contains(errOut, "502 Bad Gateway (HTML page from a proxy)") {
					t.Errorf("proxy 502: exit %d, stderr %q", code, errOut)
				}
				for _, s := range []string{"<", "nginx", "alert", "script"} {
					if strings.Contains(errOut, s) {
						t.Errorf("stderr shows the proxy's page (%q): %q", s, errOut)
					}
				}
			}
			pairs := filepath.Join(w.dir, "pairs.csv")
			writeFile(t, pairs, "recipient,message\n09121234567,Hello\n09351234567,Salam\n")
			out, errOut, code := w.run("", "send-pair", "--sender", "1000", "--file", pairs, "--yes", "--json")
			rep := decodeOut[sendPairJSON](t, "send-pair with a sender the account does not own", out)
			if code != ExitService || rep.Counts.NotSent != 2 || rep.StopCause == nil {
				t.Errorf("foreign sender: exit %d, summary %+v, stop %v; want 1, both not sent, stopped for the sender\n%s", code, rep.Counts, rep.StopCause, errOut)
			}
			for _, r := range rep.Results {
				if !strings.Contains(r.Error, "403") || !strings.Contains(r.Error, "The sender line is not allowed for this account.") {
					t.Errorf("foreign sender: %s error %q; want the status and the service's message", r.Recipient, r.Error)
				}
			}
			f.mu.Lock()
			if len(f.sent) > 0 {
				t.Errorf("a refused send went out: %v", f.sent)
			}
			f.mu.Unlock()
			w.env["SMSDESK_API_KEY"] = "sk_test_notthekey0000000000"
			_, errOut, code = w.run("", "contacts", "list", gid)
			if code != ExitAuth || !strings.Contains(errOut, "401") || !strings.Contains(errOut, tt.msg401) || !strings.Contains(errOut, "smsdesk login") {
				t.Errorf("wrong key: exit %d, stderr %q", code, errOut)
			}
			out, _, code = w.run("", "status", "--json")
			if st := decodeOut[statusReport](t, "status", out); code != ExitAuth || st.Accepted || !strings.Contains(st.ServiceError, "401") {
				t.Errorf("status with a wrong key: exit %d, %+v", code, st)
			}
			if strings.Contains(out, "notthekey") {
				t.Error("status printed the key")
			}
		})
	}
}

func TestDeployments_RateLimit(t *testing.T) {
	t.Parallel()
	// The documented 60 requests a minute, with time scaled down: 40 requests
	// per 1 s window. "paced" gives the client the same budget; the others let
	// it believe in a much larger one, so that it must slow down on the
	// service's X-RateLimit-* headers, or (without them) on 429 and Retry-After.
	for _, tt := range []struct {
		name      string
		clientPMR int
		quiet     bool
	}{
		{"paced by the client", 40 * 60, false},
		{"over budget, X-RateLimit headers", 100000, false},
		{"over budget, only 429 and Retry-After", 100000, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := deployment{mount: "/api/v1", base: "", wrap: "envelope", ids: "int", contactKey: "id", paging: "meta",
				errors: "envelope", send: "index", limit: 40, window: time.Second, quiet429: tt.quiet}
			w, f := newDeploymentWorld(t, d, tt.clientPMR)
			w.clock = newFakeClock() // the windows pass on a fake clock, not in real seconds
			f.mu.Lock()
			f.now = w.clock.Now
			f.mu.Unlock()
			gid := strings.TrimSpace(mustRun(t, w, "groups", "create", "Rate limited"))
			var b strings.Builder
			b.WriteString("mobile,name\n")
			const rows = 80
			for i := range rows {
				fmt.Fprintf(&b, "0912%07d,Row %d\n", 2000000+i, i)
			}
			csv := filepath.Join(w.dir, "many.csv")
			writeFile(t, csv, b.String())
			start := w.clock.Now()
			out, errOut, code := w.run("", "contacts", "import", gid, csv, "--json")
			res := decodeOut[struct {
				Counts map[string]int `json:"counts"`
			}](t, "import --json", out)
			if code != 0 || res.Counts["added"] != rows || res.Counts["failed"] != 0 {
				t.Fatalf("import: exit %d, summary %v\n%s", code, res.Counts, errOut)
			}
			contacts, _, throttled, _ := f.snapshot()
			if len(contacts) != rows {
				t.Errorf("the service holds %d contacts, want %d", len(contacts), rows)
			}
			if dup := f.twice(); len(dup) > 0 {
				t.Errorf("added twice: %v", dup)
			}
			if tt.quiet && throttled == 0 {
				t.Error("the service never answered 429: the test did not exercise Retry-After")
			}
			took := w.clock.Now().Sub(start)
			t.Logf("%d rows in %s, %d answered 429", rows, took.Round(time.Millisecond), throttled)
			// 80 rows at 40 a second: the second window's budget is needed, no more.
			if took < time.Second || took > 3*time.Second {
				t.Errorf("the import took %v on the service's clock, want a second or two", took)
			}
		})
	}
}

func TestDeployments_SendPairAnswers(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, send string
		bad        bool // include the recipient the service rejects
		chunk      string
		exit       int
	}{
		{"per-item answers keyed by recipient, reordered", "by-recipient", true, "100", ExitService},
		{"per-item answers in an object keyed by recipient", "recipient-map", true, "100", ExitService},
		{"only a batch id", "batch", false, "2", ExitOK},
		// Accepting an answer nobody can read could hide a rejection; sending again
		// could send twice: every item is unknown, for the operator to check.
		{"an answer in an undocumented shape", "opaque", true, "100", ExitUnknown},
		{"processed, then the connection drops", "drop", false, "2", ExitUnknown},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := deployment{mount: "/api/v1", base: "/api", wrap: "envelope", ids: "string", contactKey: "id", paging: "meta",
				errors: "envelope", send: tt.send}
			w, f := newDeploymentWorld(t, d, 6000)
			recipients := []string{"09121230001", "09121230002", "09351230003", "09901230004", "09121230005"}
			want := map[string]string{}
			if tt.bad {
				recipients[2] = blacklisted
				want[blacklisted] = "rejected"
			}
			if tt.send == "drop" || tt.send == "opaque" {
				for _, r := range recipients {
					want[r] = "unknown"
				}
			}
			if tt.send == "drop" {
				// Two chunks in a row with no certain answer pause the send:
				// the third is never posted, and stays resumable.
				want[recipients[4]] = "not_sent"
			}
			var b strings.Builder
			b.WriteString("recipient,message\n")
			for i, r := range recipients {
				fmt.Fprintf(&b, "%s,\"پیام %d برای %s\"\n", r, i, r)
			}
			pairs := filepath.Join(w.dir, "pairs.csv")
			writeFile(t, pairs, b.String())
			out, errOut, code := w.run("", "send-pair", "--sender", fakeSender, "--file", pairs, "--yes", "--json", "--chunk-size", tt.chunk)
			rep := decodeOut[sendPairJSON](t, "send-pair --json", out)
			if code != tt.exit || len(rep.Results) != len(recipients) {
				t.Fatalf("send-pair: exit %d (want %d), %d results\n%s\n%s", code, tt.exit, len(rep.Results), errOut, out)
			}
			checkSendReport(t, f, rep, want)
			if dup := f.twice(); len(dup) > 0 {
				t.Errorf("sent twice: %v", dup)
			}
			_, _, _, calls := f.snapshot()
			if tt.send == "drop" {
				if calls != 2 {
					t.Errorf("%d send-pair requests, want 2: a dropped chunk was sent again, or the send did not pause", calls)
				}
				f.mu.Lock()
				for _, r := range rep.Results {
					if want := map[bool]int{true: 0, false: 1}[r.Recipient == recipients[4]]; f.sent[r.Recipient+"\x00"+r.Message] != want {
						t.Errorf("%s processed %d times", r.Recipient, f.sent[r.Recipient+"\x00"+r.Message])
					}
				}
				f.mu.Unlock()
				if !strings.Contains(errOut, "unknown") {
					t.Errorf("stderr does not say the outcome is unknown: %s", errOut)
				}
			}
		})
	}
}
