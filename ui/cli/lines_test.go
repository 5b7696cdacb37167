package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// TestLinesSetAndList (issue 42 §6): `lines set` refuses a LINE or a kind
// that cannot be one, naming the field, before anything is written;
// records a kind (audited) that `lines --json` lists with the profile's
// sender and the lines its sends went from; `lines unset` clears it.
func TestLinesSetAndList(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	mustRun(t, w, "config", "set", "sender", sandbox.DefaultSender)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"lines", "set", "", "--kind", "service"}, "LINE is empty"},
		{[]string{"lines", "set", "30\x1b[2J00", "--kind", "service"}, "LINE holds a line break or control characters"},
		{[]string{"lines", "set", " 3000", "--kind", "service"}, "LINE \" 3000\" starts or ends with a space"},
		{[]string{"lines", "set", "3000", "--kind", "dedicated"}, `--kind: "dedicated" is not a kind of line: choose service or advertising`},
		{[]string{"lines", "set", "3000"}, "lines set needs --kind service or --kind advertising"},
		{[]string{"lines", "set", "3000", "4000", "--kind", "service"}, "accepts 1 arg"},
		{[]string{"lines", "x"}, "unknown command"},
	} {
		_, errOut, code := w.run("", tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, want %d naming %q:\n%s", tc.args, code, ExitUsage, tc.want, errOut)
		}
	}
	if out := mustRun(t, w, "lines", "--json"); strings.Contains(out, `"kind":"`) || strings.Contains(out, `"kind": "`) {
		t.Fatalf("a refused set was recorded:\n%s", out)
	}
	_, errOut, _ := w.run("", "lines", "set", sandbox.DefaultSender, "--kind", "Advertising")
	if !strings.Contains(errOut, "line 3000505: advertising (was none): quiet hours 22:00–07:00 Asia/Tehran for MCI numbers") {
		t.Errorf("lines set said:\n%s", errOut)
	}
	mustRun(t, w, "lines", "set", "10004346", "--kind", "service")
	mustRun(t, w, "config", "set", "senders", sandbox.DefaultSender+",+98200012345")
	mustRun(t, w, "send-pair", "--to", "09351234567", "--message", "hi", "--sender", "+98200012345", "--yes")

	type line struct {
		Line                  string
		Kind                  *string
		Default, Listed, Sent bool
		SetAt                 *string `json:"set_at"`
		Rules                 string
	}
	list := func() map[string]line {
		t.Helper()
		var ls []line
		if err := json.Unmarshal([]byte(mustRun(t, w, "lines", "--json")), &ls); err != nil {
			t.Fatal(err)
		}
		out := map[string]line{}
		for _, l := range ls {
			out[l.Line] = l
		}
		return out
	}
	got := list()
	if l := got[sandbox.DefaultSender]; l.Kind == nil || *l.Kind != "advertising" || !l.Default || l.SetAt == nil {
		t.Errorf("the sender: %+v", l)
	}
	if l := got["10004346"]; l.Kind == nil || *l.Kind != "service" || l.Default || !strings.Contains(l.Rules, "suffix «لغو۱۱»") {
		t.Errorf("the service line: %+v", l)
	}
	if l := got["+98200012345"]; l.Kind != nil || !l.Sent || !l.Listed || l.Rules != "the profile's settings" {
		t.Errorf("the line a send went from: %+v", l)
	}
	mustRun(t, w, "lines", "unset", "10004346")
	if _, ok := list()["10004346"]; ok {
		t.Error("an unset line with nothing else to it is still listed")
	}
	audit := mustRun(t, w, "audit", "--json")
	for _, want := range []string{`"action":"line_kind"`, `"action":"line_kind_unset"`, "kind advertising (was none)", "kind none (was service)"} {
		if !strings.Contains(strings.ReplaceAll(audit, `": "`, `":"`), want) {
			t.Errorf("the audit trail has no %s:\n%s", want, audit)
		}
	}
}

// TestLineKindRulesOnSend: at 23:00 in Tehran (the fake clock), a send on
// an advertising line to an MCI number is refused naming the line's kind
// and when it may go, one to Irancell numbers goes, saying why; on a
// service line the message carries «لغو۱۱» without --suffix being set,
// and the plan, the refusal and --json say which rules apply.
func TestLineKindRulesOnSend(t *testing.T) {
	t.Parallel()
	w := newCLIWorld(t)
	w.clock = newFakeClock()
	w.clock.Advance(7*time.Hour + 30*time.Minute) // 19:30 UTC: 23:00 Tehran
	mustRun(t, w, "config", "set", "sender", sandbox.DefaultSender)
	send := func(to string, extra ...string) (string, string, int) {
		return w.run("", append([]string{"send-pair", "--to", to, "--message", "Hi", "--yes"}, extra...)...)
	}

	mustRun(t, w, "lines", "set", sandbox.DefaultSender, "--kind", "advertising")
	_, errOut, code := send("09121234567")
	if code != ExitUsage || !strings.Contains(errOut, "advertising line 3000505 to MCI numbers: quiet hours 22:00–07:00 Asia/Tehran; sending may start at tomorrow 07:00") {
		t.Errorf("advertising to MCI at 23:00: exit %d:\n%s", code, errOut)
	}
	out, _, code := send("09121234567", "--json")
	var rep struct {
		Rules struct {
			Kind       string
			QuietHours []struct{ Window, Timezone, From string } `json:"quiet_hours"`
			Suffix     *string
			MCI        int `json:"mci_recipients"`
		}
		Results []struct{ Message string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != ExitUsage || rep.Rules.Kind != "advertising" || rep.Rules.MCI != 1 ||
		len(rep.Rules.QuietHours) != 1 || rep.Rules.QuietHours[0].Window != "22:00-07:00" || rep.Rules.QuietHours[0].Timezone != "Asia/Tehran" {
		t.Errorf("--json of the refusal: exit %d, %v %+v\n%s", code, err, rep.Rules, out)
	}
	_, errOut, code = send("09351234567")
	if code != 0 || !strings.Contains(errOut, "Rules: advertising line 3000505: no MCI numbers") {
		t.Errorf("advertising to Irancell at 23:00: exit %d:\n%s", code, errOut)
	}

	mustRun(t, w, "lines", "set", sandbox.DefaultSender, "--kind", "service")
	out, errOut, code = send("09121234567", "--json")
	rep.Results = nil
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || len(rep.Results) != 1 ||
		rep.Results[0].Message != "Hi\nلغو۱۱" || rep.Rules.Suffix == nil || *rep.Rules.Suffix != "لغو۱۱" {
		t.Errorf("service to MCI at 23:00: exit %d, %v %+v\n%s\n%s", code, err, rep, out, errOut)
	}
	_, errOut, _ = w.run("", "send-pair", "--to", "09121234568", "--message", "Hi", "--dry-run")
	if !strings.Contains(errOut+mustRun(t, w, "send-pair", "--to", "09121234568", "--message", "Hi", "--dry-run"),
		"Rules: service line 3000505: suffix «لغو۱۱», no quiet hours of its own") {
		t.Errorf("the dry run does not say the service line's rules:\n%s", errOut)
	}
}
