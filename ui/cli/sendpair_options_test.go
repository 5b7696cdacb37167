package cli

import (
	"context"
	"strings"
	"testing"
)

// TestSendPairValidate: send-pair's flag rules, checked on the options
// alone (no cobra, nothing read or asked): each refused combination says
// which flags go together, and the first rule met is the one said.
func TestSendPairValidate(t *testing.T) {
	for _, tt := range []struct {
		name string
		o    sendPairOptions
		want string // "" when valid
	}{
		{"pairs", sendPairOptions{To: []string{"0912"}, Message: []string{"hi"}}, ""},
		{"pairs file", sendPairOptions{File: "p.csv", NoHeader: true}, ""},
		{"group", sendPairOptions{Group: "4", Template: "Hi {name}"}, ""},
		{"resume", sendPairOptions{Resume: "x", IncludeUnknown: true, AllowRepeat: true}, ""},
		{"nothing", sendPairOptions{}, "nothing to send: give --to"},
		{"unknown without resume", sendPairOptions{File: "p.csv", IncludeUnknown: true}, "--include-unknown goes with --resume ID"},
		{"pairs and a file", sendPairOptions{To: []string{"0912"}, Message: []string{"hi"}, File: "p.csv"}, "--to and --message give the pairs themselves"},
		{"pairs unpaired", sendPairOptions{To: []string{"0912", "0935"}, Message: []string{"hi"}}, "2 --to but 1 --message"},
		{"file and group", sendPairOptions{File: "p.csv", Group: "4", Template: "x"}, "give either --file or --group"},
		{"group without template", sendPairOptions{Group: "4"}, "--group needs --template"},
		{"message column with template", sendPairOptions{File: "c.csv", Template: "x", MessageColumn: "m"}, "--message-column names a pairs file's message column"},
		{"columns with a group", sendPairOptions{Group: "4", Template: "x", Columns: []string{"a"}}, "--no-header and --columns describe"},
		{"no header and columns", sendPairOptions{File: "p.csv", NoHeader: true, Columns: []string{"mobile", "message"}}, "--no-header reads the columns as recipient, message"},
		{"chunk size", sendPairOptions{File: "p.csv", ChunkSize: -1}, "--chunk-size -1: use 1 to"},
		{"at from stdin", sendPairOptions{File: "-", At: "08:00"}, "--at keeps the rows"},
		{"at empty", sendPairOptions{File: "p.csv", AtGiven: true, At: " "}, "--at is empty"},
		{"once id", sendPairOptions{File: "p.csv", Once: " x"}, `--once " x": spaces at its start or end`},
		{"resume with once", sendPairOptions{Resume: "x", Once: "y"}, "--once names a new send"},
		{"resume with a file", sendPairOptions{Resume: "x", File: "p.csv"}, "--resume takes only"},
		{"resume with --at", sendPairOptions{Resume: "x", At: "08:00"}, "--resume takes only"},
		{"resend", sendPairOptions{ResendFailed: "x", IncludeRejected: true, AllowRepeat: true, NoSuffix: true, DryRun: true, JSON: true}, ""},
		{"rejected without resend", sendPairOptions{File: "p.csv", IncludeRejected: true}, "--include-rejected goes with --resend-failed ID"},
		{"rejected with a resume", sendPairOptions{Resume: "x", IncludeRejected: true}, "--include-rejected goes with --resend-failed ID"},
		{"resume and resend", sendPairOptions{Resume: "x", ResendFailed: "y"}, "give either --resume ID"},
		{"resend with a file", sendPairOptions{ResendFailed: "x", File: "p.csv"}, "--resend-failed takes only"},
		{"resend with pairs", sendPairOptions{ResendFailed: "x", To: []string{"0912"}, Message: []string{"hi"}}, "--resend-failed takes only"},
		{"resend from another line", sendPairOptions{ResendFailed: "x", Sender: "3000"}, "the line come from the send it names"},
		{"resend at a time", sendPairOptions{ResendFailed: "x", At: "08:00"}, "and it goes now"},
		{"resend once", sendPairOptions{ResendFailed: "x", Once: "r-1"}, "--resend-failed takes only"},
		{"resend with unknown", sendPairOptions{ResendFailed: "x", IncludeUnknown: true}, "--resend-failed takes only"},
		{"resend chunk size", sendPairOptions{ResendFailed: "x", ChunkSize: -1}, "--chunk-size -1: use 1 to"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || exitCode(err) != ExitUsage):
				t.Errorf("got %v (exit %d), want a usage error with %q", err, exitCode(err), tt.want)
			}
		})
	}
}

// TestSendPairFlagsFillOptions: the command fills the options from its
// flags and hands them to runF, checked, without running the send: --to
// and --message in order, --at given empty noted, --base-url noted for a
// resume; a refused combination never reaches runF.
func TestSendPairFlagsFillOptions(t *testing.T) {
	f, _, _ := testFactory(t, nil)
	f.baseURLFlag = "http://127.0.0.1:1/v1"
	var got *sendPairOptions
	runF := func(_ context.Context, o *sendPairOptions) error { got = o; return nil }
	cmd := newCmdSendPair(f, runF)
	cmd.SetArgs([]string{"--to", "09121234567", "--message", "Hi Ali", "--to", "09351234567", "--message", "Hi Sara", "--once", "r-1", "--yes", "--json"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || strings.Join(got.To, ",") != "09121234567,09351234567" || strings.Join(got.Message, ",") != "Hi Ali,Hi Sara" ||
		got.Once != "r-1" || !got.Yes || !got.JSON || !got.AnyBaseURL || got.AtGiven {
		t.Fatalf("options %+v", got)
	}

	got = nil
	cmd = newCmdSendPair(f, runF)
	cmd.SetArgs([]string{"--file", "p.csv", "--at", ""})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--at is empty") || got != nil {
		t.Fatalf("--at '': %v, runF ran: %v", err, got != nil)
	}
}
