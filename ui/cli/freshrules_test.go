package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/ui/app"
	"github.com/smsdesk/smsdesk/ui/serve"
)

// freshSuffix is the opt-out suffix the host sets while serve runs.
const freshSuffix = "لغو۱۱"

// servedWorld is a CLI world (its sandbox on loopback, its fake clock at
// 15:30 in Tehran) with one sender line and operator sara, and the engine
// smsdesk serve opens on it (serveEngine: the sessions and the runner).
func servedWorld(t *testing.T) (*cliWorld, *served, *app.Session) {
	t.Helper()
	w := newCLIWorld(t)
	w.clock = newFakeClock() // 2026-03-20 12:00 UTC, 15:30 in Tehran
	for _, args := range [][]string{{"config", "set", "senders", sandbox.DefaultSender}, {"config", "set", "sender", sandbox.DefaultSender},
		{"operators", "add", "sara", "--key", testOperatorKey}} {
		if _, errOut, code := w.run("", args...); code != 0 {
			t.Fatalf("%v: %s", args, errOut)
		}
	}
	a := newFactory(nil, Env{Getenv: func(k string) string { return w.env[k] }, Now: w.clock.Now, Sleep: w.clock.Sleep, Stderr: &bytes.Buffer{}})
	eng, err := a.serveEngine(context.Background(), false, &app.SendTracker{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eng.close)
	ops, err := serve.TrustedOperators(eng.opPaths)()
	if err != nil || len(ops) != 1 {
		t.Fatalf("operators: %v %v", ops, err)
	}
	return w, eng, eng.app(ops[0].Operator())
}

// setConfig is `smsdesk config set NAME VALUE` on the host.
func (w *cliWorld) setConfig(name, value string) {
	w.t.Helper()
	if _, errOut, code := w.run("", "config", "set", name, value); code != 0 {
		w.t.Fatalf("config set %s: %s", name, errOut)
	}
}

// TestServeReadsTheRulesAsTheyAreNow: `config set` on the host while serve
// runs counts from an operator's next plan and start (issue 35): the suffix
// set after the question opened refuses its yes (the question showed none)
// and the next plan carries it, to the service; quiet hours set next
// refuse the next plan before any request; a config file that no longer
// parses refuses naming it. Serve read the profile once, at its start:
// the operator's send went out inside quiet hours, with no suffix.
func TestServeReadsTheRulesAsTheyAreNow(t *testing.T) {
	w, _, sara := servedWorld(t)
	ctx := context.Background()
	rows := []model.PairRow{{Recipient: "09121234567", Message: "see you at 6"}, {Recipient: "09351234567", Message: "see you at 7"}}
	facePlan := sara.Plan(sandbox.DefaultSender, rows) // the composer's plan, built before the change
	asked, err := sara.PrepareSend(ctx, app.SendRequest{Plan: facePlan, Source: app.TypedSource()})
	if err != nil || asked.Refusal != nil || asked.Plan.Suffix != "" {
		t.Fatalf("before the change: %v %v, suffix %q", err, asked.Refused(), asked.Plan.Suffix)
	}

	w.setConfig("optout_suffix", freshSuffix)
	_, err = asked.Start(ctx, app.SendOptions{})
	var ref *app.Refusal
	if !errors.As(err, &ref) || ref.Rule != app.RuleSettingsChanged || !strings.Contains(err.Error(), "optout_suffix (none) → "+freshSuffix) {
		t.Fatalf("yes to a question that showed no suffix: %v", err)
	}
	if n := len(w.srv.Sent()); n != 0 {
		t.Fatalf("the refused yes sent %d", n)
	}
	again, err := sara.PrepareSend(ctx, app.SendRequest{Plan: facePlan, Source: app.TypedSource()})
	if err != nil || again.Refusal != nil || again.Plan.Suffix != freshSuffix || again.Rules().Suffix != freshSuffix {
		t.Fatalf("the next plan: %v %v, suffix %q", err, again.Refused(), again.Plan.Suffix)
	}
	x, err := again.Start(ctx, app.SendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Wait(); err != nil {
		t.Fatal(err)
	}
	sent := w.srv.Sent()
	if len(sent) != 2 {
		t.Fatalf("the service took %d, want 2", len(sent))
	}
	for _, m := range sent {
		if !strings.HasSuffix(m.Message, "\n"+freshSuffix) {
			t.Errorf("sent without the suffix set on the host: %q", m.Message)
		}
	}

	w.setConfig("quiet_hours", "15:00-08:00") // 15:30 now: inside
	late, err := sara.PrepareSend(ctx, app.SendRequest{Plan: sara.Plan(sandbox.DefaultSender, rows[:1]), Source: app.TypedSource()})
	if err != nil || late.Refusal == nil || late.Refusal.Rule != app.RuleQuietHours {
		t.Fatalf("a plan inside quiet hours set on the host: %v %+v", err, late.Refusal)
	}
	if _, err := late.Start(ctx, app.SendOptions{}); err == nil {
		t.Fatal("a send inside quiet hours started")
	}
	if n := len(w.srv.Sent()); n != 2 {
		t.Fatalf("the service took %d after quiet hours began, want the 2 before", n)
	}

	file := config.PathsIn(w.env["SMSDESK_CONFIG_DIR"], w.env["SMSDESK_STATE_DIR"]).ConfigFile
	if err := os.WriteFile(file, []byte("[profiles.default\nquiet_hours = \"off\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = sara.PrepareSend(ctx, app.SendRequest{Plan: facePlan, Source: app.TypedSource()})
	if !errors.As(err, &ref) || ref.Rule != app.RuleSetting || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "nothing was sent") {
		t.Fatalf("a damaged config file: %v", err)
	}
}

// TestServeRunnerReadsTheRulesAsTheyAreNow: quiet hours set on the host
// after serve started hold a due scheduled send at its start (nothing
// sent, held until they end): serve's runner read the profile once, and
// sent it.
func TestServeRunnerReadsTheRulesAsTheyAreNow(t *testing.T) {
	w, eng, sara := servedWorld(t)
	ctx := context.Background()
	p, err := sara.PrepareSend(ctx, app.SendRequest{Plan: sara.Plan(sandbox.DefaultSender, []model.PairRow{{Recipient: "09121234567", Message: "at 16:00"}}),
		Source: app.TypedSource(), At: w.clock.Now().Add(30 * time.Minute)})
	if err != nil || p.Refusal != nil {
		t.Fatalf("prepare: %v %v", err, p.Refused())
	}
	sc, err := p.Schedule(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w.setConfig("quiet_hours", "15:45-08:00")
	w.clock.Advance(30 * time.Minute) // 16:00 in Tehran: due, inside quiet hours set since
	if _, err := eng.runner.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := config.ReadJournal(t.Context(), eng.paths, sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(w.srv.Sent()); n != 0 || !st.Held() {
		t.Errorf("a due send inside quiet hours set after serve started: the service took %d; held %v (%+v)", n, st.Held(), st.Counts())
	}
}

// TestSchedulerReadsTheRulesAsTheyAreNow: a foreground smsdesk scheduler
// started before quiet hours were set holds the due send at its start:
// it read the profile once, at its start, and sent it inside them.
func TestSchedulerReadsTheRulesAsTheyAreNow(t *testing.T) {
	w := newCLIWorld(t)
	w.clock = newFakeClock() // 15:30 in Tehran
	w.setConfig("senders", sandbox.DefaultSender)
	w.setConfig("sender", sandbox.DefaultSender)
	out, errOut, code := w.run("", "send-pair", "--to", "09121234567", "--message", "at 16:00", "--at", "16:00", "--yes", "--json", "--jq", ".id")
	if code != 0 {
		t.Fatalf("send-pair --at: %s", errOut)
	}
	id := strings.TrimSpace(out)

	ctx, stop := context.WithCancel(context.Background())
	var schedOut, schedErr bytes.Buffer
	ended := make(chan int, 1)
	go func() {
		ended <- Main(ctx, []string{"scheduler", "--poll", "1s"}, Env{Stdin: strings.NewReader(""), Stdout: &schedOut, Stderr: &schedErr,
			Getenv: func(k string) string { return w.env[k] }, Now: w.clock.Now, Sleep: w.clock.Sleep})
	}()
	defer func() {
		stop()
		<-ended
	}()
	w.setConfig("quiet_hours", "15:45-08:00")
	w.clock.Advance(30 * time.Minute) // 16:00: due, inside quiet hours set after the scheduler started
	paths := config.PathsIn(w.env["SMSDESK_CONFIG_DIR"], w.env["SMSDESK_STATE_DIR"])
	var st *model.JournalState
	var err error
	eventually.True(t, waitLimit, func() bool { // the journal's state
		st, err = config.ReadJournal(t.Context(), paths, id)
		return err == nil && (st.Held() || st.Complete() || len(w.srv.Sent()) > 0)
	}, func() string { return fmt.Sprintf("the scheduler did not start the due send: %v", err) })
	if n := len(w.srv.Sent()); n != 0 || !st.Held() {
		t.Errorf("a due send inside quiet hours set after the scheduler started: the service took %d; held %v (%+v)", n, st.Held(), st.Counts())
	}
}
