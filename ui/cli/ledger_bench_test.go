package cli

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/config/ledger/ledgertest"
	"github.com/smsdesk/smsdesk/model"
)

// Benchmarks of what must not grow with the ledger (issue 36 §7), each a
// whole command run in this process as a person runs it (its ledger opened
// and closed, its plan checked, its records written), on SQLite and on
// PostgreSQL ($SMSDESK_TEST_POSTGRES; skipped without it). BENCHMARKS.md
// ("ledger") has the figures.

// benchWorld is a profile on a sandbox with its ledger on one backend.
type benchWorld struct {
	sb   *sandbox.Server
	base string // the service's base URL
	env  map[string]string
	loc  string // the ledger's location
	dir  string
}

func newBenchWorld(b testing.TB, be ledgertest.Backend) *benchWorld {
	b.Helper()
	sb, err := sandbox.New(sandbox.Options{})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(sb.Handler())
	b.Cleanup(srv.Close)
	dir := b.TempDir()
	w := &benchWorld{sb: sb, base: srv.URL + "/api/v1", dir: dir, env: map[string]string{
		"SMSDESK_CONFIG_DIR": filepath.Join(dir, "config"),
		"SMSDESK_STATE_DIR":  filepath.Join(dir, "state"),
		"SMSDESK_API_KEY":    sb.Key(),
		"SMSDESK_BASE_URL":   srv.URL + "/api/v1",
	}}
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o700); err != nil {
		b.Fatal(err)
	}
	cfg := fmt.Sprintf("active = \"default\"\n[profiles.default]\nrate_per_minute = 6000\nsender = %q\nsenders = [%q]\n", sandbox.DefaultSender, sandbox.DefaultSender)
	if err := os.WriteFile(filepath.Join(dir, "config", "config.toml"), []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	w.loc = filepath.Join(dir, "state", ledger.FileName)
	if be.Name != "sqlite" {
		w.loc = be.Location(b)
		w.env[config.EnvLedger] = w.loc
	}
	l, err := ledger.Create(context.Background(), w.loc)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	return w
}

// run runs smsdesk args… to its end; anything but exit 0 fails.
func (w *benchWorld) run(b testing.TB, args ...string) {
	b.Helper()
	var errOut strings.Builder
	code := Main(context.Background(), args, Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &errOut,
		Getenv: func(k string) string { return w.env[k] }})
	if code != 0 {
		b.Fatalf("smsdesk %s: exit %d\n%s", strings.Join(args, " "), code, errOut.String())
	}
}

// seed writes n past sends of the profile, the newest a day and an hour
// ago (outside the repeat window: what is inside it is the repeat check's
// own cost, which grows with the window's sends, not the past's), one a
// minute before that.
func (w *benchWorld) seed(b testing.TB, n int) {
	b.Helper()
	plan := model.JournalPlan{Profile: "default", Sender: sandbox.DefaultSender, Source: "--to/--message", BaseURL: w.base,
		Account: model.AccountID(w.base, w.sb.Key()), ChunkSize: 100}
	ledgertest.SeedSends(b, w.loc, n, plan, time.Now().Add(-25*time.Hour), time.Minute)
}

// BenchmarkPastSends: history's first page (--limit 20), one new 1-pair
// send and the scheduler's pass with nothing due (--once), at 100, 10,000
// and 100,000 past sends (issue 36: history and the send at most 1.5× at
// 100,000 what they take at 100; the idle pass touches only due rows).
//
//	go test -run '^$' -bench PastSends -benchtime 20x ./ui/cli
func BenchmarkPastSends(b *testing.B) {
	for _, be := range ledgertest.Backends() {
		for _, n := range []int{100, 10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/sends=%d", be.Name, n), func(b *testing.B) {
				w := newBenchWorld(b, be)
				w.seed(b, n)
				b.Run("history", func(b *testing.B) {
					for range b.N {
						w.run(b, "history", "--limit", "20")
					}
				})
				sent := 0
				b.Run("send", func(b *testing.B) {
					for range b.N {
						sent++
						w.run(b, "send-pair", "--to", fmt.Sprintf("0912%07d", sent), "--message", fmt.Sprintf("bench %d", sent), "--yes")
					}
				})
				b.Run("idle", func(b *testing.B) {
					for range b.N {
						w.run(b, "scheduler", "--once")
					}
				})
			})
		}
	}
}

// BenchmarkOptOutList: one `optout add` and a 10,000-pair dry run against
// an empty opt-out list and one of 1,000,000 numbers (issue 36: the add at
// most 100 ms, the dry run at most 2× its time against the empty list).
//
//	go test -run '^$' -bench OptOutList -benchtime 10x ./ui/cli
func BenchmarkOptOutList(b *testing.B) {
	for _, be := range ledgertest.Backends() {
		for _, size := range []int{0, 1_000_000} {
			b.Run(fmt.Sprintf("%s/list=%d", be.Name, size), func(b *testing.B) {
				w := newBenchWorld(b, be)
				l, err := ledger.Open(context.Background(), w.loc)
				if err != nil {
					b.Fatal(err)
				}
				entries := func(yield func(model.OptOut, error) bool) {
					for i := range size {
						if !yield(model.OptOut{Mobile: fmt.Sprintf("0912%07d", i), Added: time.Now(), Note: "bench"}, nil) {
							return
						}
					}
				}
				if _, err := l.ImportOptOuts(context.Background(), entries, nil); err != nil {
					b.Fatal(err)
				}
				l.Close()
				// 10,000 pairs spread over the list's numbers, one in a
				// hundred on it (when it is full).
				var f strings.Builder
				f.WriteString("mobile,message\n")
				for i := range 10_000 {
					prefix := "0913"
					if i%100 == 0 {
						prefix = "0912"
					}
					fmt.Fprintf(&f, "%s%07d,code %d\n", prefix, i*97, i)
				}
				file := filepath.Join(w.dir, "pairs.csv")
				if err := os.WriteFile(file, []byte(f.String()), 0o600); err != nil {
					b.Fatal(err)
				}
				added := 0
				b.Run("add", func(b *testing.B) {
					for range b.N {
						added++
						w.run(b, "optout", "add", fmt.Sprintf("0936%07d", added))
					}
				})
				b.Run("dryrun10k", func(b *testing.B) {
					for range b.N {
						w.run(b, "send-pair", "--file", file, "--dry-run")
					}
				})
			})
		}
	}
}

// TestMakeBenchHome makes a HOME whose ledger holds $SMSDESK_BENCH_SENDS
// past sends, for timing the built binary from outside (BENCHMARKS.md,
// "ledger"): with SMSDESK_BENCH_HOME=DIR (made new), against the service at
// $SMSDESK_BASE_URL with $SMSDESK_API_KEY (a running `smsdesk sandbox`),
// its ledger in DIR's state directory or at $SMSDESK_LEDGER (a PostgreSQL
// database with no ledger yet). Skipped without SMSDESK_BENCH_HOME.
func TestMakeBenchHome(t *testing.T) {
	home := os.Getenv("SMSDESK_BENCH_HOME")
	if home == "" {
		t.Skip("makes a HOME for timing the binary: set SMSDESK_BENCH_HOME, SMSDESK_BENCH_SENDS, SMSDESK_BASE_URL and SMSDESK_API_KEY")
	}
	var n int
	if _, err := fmt.Sscan(os.Getenv("SMSDESK_BENCH_SENDS"), &n); err != nil {
		t.Fatalf("SMSDESK_BENCH_SENDS: %v", err)
	}
	base, key := os.Getenv("SMSDESK_BASE_URL"), os.Getenv("SMSDESK_API_KEY")
	cfgDir := filepath.Join(home, ".config", "smsdesk")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("active = \"default\"\n[profiles.default]\nrate_per_minute = 6000\nsender = %q\nsenders = [%q]\n", sandbox.DefaultSender, sandbox.DefaultSender)
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	loc := os.Getenv(config.EnvLedger)
	if loc == "" {
		loc = filepath.Join(home, ".local", "state", "smsdesk", ledger.FileName)
	}
	l, err := ledger.Create(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	plan := model.JournalPlan{Profile: "default", Sender: sandbox.DefaultSender, Source: "--to/--message", BaseURL: base,
		Account: model.AccountID(base, key), ChunkSize: 100}
	ledgertest.SeedSends(t, loc, n, plan, time.Now().Add(-25*time.Hour), time.Minute)
}
