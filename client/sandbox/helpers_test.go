package sandbox

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model/fakeclock"
)

// newClock is the tests' clock for Options.Now.
func newClock() *fakeclock.Clock { return fakeclock.New(time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)) }

// env is a sandbox behind an httptest server.
type env struct {
	t    *testing.T
	srv  *Server
	base string // http://127.0.0.1:N/api/v1
	key  string
}

func setup(t *testing.T, opts Options) *env {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		ts.Close()
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return &env{t: t, srv: s, base: ts.URL + "/api/v1", key: s.Key()}
}

// response is a decoded answer.
type response struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

// do sends method path body with the env's key. body may be a string (sent
// as is) or any value (sent as JSON); nil sends nothing.
func (e *env) do(method, path string, body any) response {
	e.t.Helper()
	return e.doKey(e.key, method, path, body, nil)
}

func (e *env) doKey(key, method, path string, body any, hdr map[string]string) response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	url := path
	if !strings.HasPrefix(path, "http") {
		url = e.base + path
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	r := response{status: resp.StatusCode, header: resp.Header, raw: raw}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &r.body); err != nil {
			e.t.Fatalf("%s %s: answer is not a JSON object: %v\n%s", method, path, err, raw)
		}
	}
	return r
}

// wantError checks an error envelope.
func (r response) wantError(t *testing.T, status int, code string) {
	t.Helper()
	if r.status != status || r.body["success"] != false || r.body["error_code"] != code {
		t.Fatalf("want %d %s, got %d %s", status, code, r.status, r.raw)
	}
	if m, _ := r.body["message"].(string); m == "" {
		t.Errorf("error without a message: %s", r.raw)
	}
}

// data checks a success envelope and returns its data object.
func (r response) data(t *testing.T, status int) map[string]any {
	t.Helper()
	if r.status != status || r.body["success"] != true {
		t.Fatalf("want %d success, got %d %s", status, r.status, r.raw)
	}
	d, _ := r.body["data"].(map[string]any)
	return d
}

// num reads a JSON number field as an int.
func num(t *testing.T, m map[string]any, k string) int {
	t.Helper()
	f, ok := m[k].(float64)
	if !ok {
		t.Fatalf("field %q is %T (%v), want a number", k, m[k], m[k])
	}
	return int(f)
}

// mkGroup creates a group and returns its id.
func (e *env) mkGroup(name string) int {
	e.t.Helper()
	return num(e.t, e.do("POST", "/contact-groups", map[string]any{"name": name}).data(e.t, 201), "id")
}

// mkContact adds a contact and returns its id.
func (e *env) mkContact(gid int, mobile string) int {
	e.t.Helper()
	r := e.do("POST", "/contacts", map[string]any{"group_id": gid, "mobile": mobile})
	return num(e.t, r.data(e.t, 201), "id")
}
