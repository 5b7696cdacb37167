package cli

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestProgressLines(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	type step struct {
		at   time.Duration
		done int
	}
	cases := []struct {
		name     string
		total    int
		terminal bool
		steps    []step
		want     string
	}{
		{"pipe: a line per tenth with rate and ETA", 100, false,
			[]step{{0, 0}, {time.Second, 5}, {2 * time.Second, 10}, {3 * time.Second, 15}, {4 * time.Second, 20}, {10 * time.Second, 100}},
			"sending 10/100 · 5.0/s · ETA 18s\nsending 20/100 · 5.0/s · ETA 16s\nsending 100/100 · 10.0/s · took 10s\n"},
		{"pipe: under a second, no rate yet", 10, false,
			[]step{{0, 0}, {100 * time.Millisecond, 10}},
			"sending 10/10\n"},
		{"terminal: redrawn in place, ended with a newline", 4, true,
			[]step{{0, 0}, {2 * time.Second, 2}, {2*time.Second + 10*time.Millisecond, 3}, {4 * time.Second, 4}},
			"\r\x1b[Ksending [....................] 0/4\r\x1b[Ksending [##########..........] 2/4 · 1.0/s · ETA 2s\r\x1b[Ksending [####################] 4/4 · 1.0/s · took 4s\n"},
		{"pipe, total unknown: every 10 s", -1, false,
			[]step{{0, 15}, {5 * time.Second, 30}, {10 * time.Second, 45}, {21 * time.Second, 60}},
			"sending 15\nsending 45 · 4.5/s\nsending 60 · 2.9/s\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var now time.Time
			var b bytes.Buffer
			p := &progress{w: &b, label: "sending", total: c.total, terminal: c.terminal, now: func() time.Time { return now }}
			for _, s := range c.steps {
				now = t0.Add(s.at)
				p.update(s.done)
			}
			p.finish()
			if b.String() != c.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), c.want)
			}
		})
	}
}

// TestSendProgressOnAPipe: a paced send on a pipe writes whole lines with the
// rate and an ETA, never a carriage return.
func TestSendProgressOnAPipe(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	w.clock = newFakeClock()
	mustRun(t, w, "config", "set", "rate_per_minute", "2")
	mustRun(t, w, "config", "set", "chunk_size", "10")
	var rows strings.Builder
	rows.WriteString("mobile,message\n")
	for i := range 50 {
		rows.WriteString(fmt.Sprintf("0912000%04d", i) + ",hello\n")
	}
	file := filepath.Join(w.dir, "pairs.csv")
	writeFile(t, file, rows.String())
	_, errOut, code := w.run("", "send-pair", "--file", file, "--sender", "3000505", "--yes")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if strings.Contains(errOut, "\r") {
		t.Errorf("progress on a pipe redraws with \\r:\n%q", errOut)
	}
	// Exact figures depend on where the pacer's waits fall; the shape does not.
	line := regexp.MustCompile(`^sending (\d+)/50(?: · \d+\.\d/s · (ETA|took) \d+(?:m\d+)?s)?$`)
	var sending, etas int
	last := ""
	for _, l := range strings.Split(errOut, "\n") {
		if !strings.HasPrefix(l, "sending") {
			continue
		}
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("progress line %q is not 'sending N/50 · R/s · ETA D'", l)
			continue
		}
		sending++
		if m[2] == "ETA" {
			etas++
		}
		last = l
	}
	if sending < 5 || etas < 3 || !strings.HasPrefix(last, "sending 50/50 ·") || !strings.Contains(last, "took ") {
		t.Errorf("want a line per tenth with rates and ETAs, ending 'sending 50/50 · … took …':\n%s", errOut)
	}
}
