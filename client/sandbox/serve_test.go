package sandbox

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/model/syncbuf"
)

// waitLimit bounds the tests' waits on a run, a server or a process. It
// guards against a hang and is no budget: a machine busy with other work
// (load 17-29 on 2 cores, under -race) takes longer than the 5 to 40 s that
// stood here.
const waitLimit = 3 * time.Minute

func TestServe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data.json")
	ctx, cancel := context.WithCancel(context.Background())
	var out syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, Options{Key: "sk_test_serve", Seed: true, DataFile: path,
			WebhookURL: "http://127.0.0.1:9/webhook/default", WebhookSecret: "whsec_serve"}, "127.0.0.1:0", &out)
	}()

	re := regexp.MustCompile(`smsdesk sandbox serving (http://127\.0\.0\.1:\d+/api/v1)\n`)
	var base string
	if !eventually.Within(waitLimit, func() bool {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
		return base != ""
	}) {
		cancel()
		t.Fatalf("no base URL printed:\n%s", out.String())
	}
	printed := out.String()
	for _, want := range []string{"sk_test_serve", "SMSDESK_BASE_URL=" + base, "SMSDESK_API_KEY=sk_test_serve", "smsdesk contacts list 1",
		"replies: smsdesk sandbox reply FROM LINE TEXT --sandbox " + base + "\n"} { // not on the reply's default address: said whole
		if !strings.Contains(printed, want) {
			t.Errorf("output lacks %q:\n%s", want, printed)
		}
	}
	if strings.Contains(printed, "warning") {
		t.Errorf("loopback serve printed a warning:\n%s", printed)
	}
	e := &env{t: t, base: base, key: "sk_test_serve"}
	gid := e.mkGroup("made while serving")

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Serve did not return after its context ended")
	}
	if _, err := http.Get(base); err == nil {
		t.Error("still serving after shutdown")
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "made while serving") {
		t.Errorf("data file after shutdown (group %d): %v\n%.200s", gid, err, b)
	}
}

func TestServeRefusesAddresses(t *testing.T) {
	tests := []struct{ addr, want string }{
		{":8080", "every interface"},
		{":0", "every interface"},
		{"localhost", "address"},
		{"127.0.0.1:99999", "listen"},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			var out bytes.Buffer
			err := Serve(context.Background(), Options{}, tt.addr, &out)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Serve(%q): %v, want an error about %q", tt.addr, err, tt.want)
			}
			if out.Len() != 0 {
				t.Errorf("printed before refusing: %s", out.String())
			}
		})
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.1.2.3": true, "::1": true, "[::1]": true, "localhost": true,
		"0.0.0.0": false, "192.168.1.5": false, "example.com": false, "::": false,
	} {
		if got := isLoopback(host); got != want {
			t.Errorf("isLoopback(%q) = %v", host, got)
		}
	}
}

func TestStartClose(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	base, err := s.Start("")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/api/v1$`).MatchString(base) {
		t.Errorf("base URL %q", base)
	}
	if _, err := s.Start(""); err == nil {
		t.Error("second Start: want an error")
	}
	e := &env{t: t, base: base, key: s.Key()}
	e.mkGroup("g")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Start(""); err == nil {
		t.Error("Start after Close: want an error")
	}
	if _, err := http.Get(base); err == nil {
		t.Error("still serving after Close")
	}
}
