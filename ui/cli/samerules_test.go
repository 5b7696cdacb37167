package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/ui/app/apptest"
)

// TestSameRulesThroughTheCLI runs the send rules' table (apptest.Cases,
// which ui/console's TestSameRulesAsTheCLI runs too) through send-pair,
// groups create and contacts add: each exits 2 with the reason the console
// shows, then its own hint (flags and commands), and no send request (for a
// group or a contact, no request at all) reaches the service.
func TestSameRulesThroughTheCLI(t *testing.T) {
	t.Parallel()
	for _, c := range apptest.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			e := newSendEnvOpts(t, c.Sandbox, nil)
			paths := config.PathsIn(e.env["SMSDESK_CONFIG_DIR"], e.env["SMSDESK_STATE_DIR"])
			prof := c.Profile
			prof.Name, prof.Sender, prof.RatePerMinute = "test", sandbox.DefaultSender, 6000
			// Written by hand, as an operator would: Save refuses a setting
			// that does not read.
			toml := "active = \"test\"\n[profiles.test]\nsender = \"" + prof.Sender + "\"\nrate_per_minute = 6000\n"
			if prof.RepeatWindow != "" {
				toml += "repeat_window = \"" + prof.RepeatWindow + "\"\n"
			}
			if prof.QuietHours != "" {
				toml += "quiet_hours = \"" + prof.QuietHours + "\"\n"
			}
			if c.RepeatProfile != "" { // the same account: this service and key, its base URL spelled another way
				toml += "[profiles." + c.RepeatProfile + "]\nsender = \"" + prof.Sender + "\"\nrate_per_minute = 6000\nbase_url = \"" +
					strings.TrimSuffix(e.env["SMSDESK_BASE_URL"], "/v1") + "/\"\n"
			}
			if err := os.WriteFile(paths.ConfigFile, []byte(toml), 0o600); err != nil {
				t.Fatal(err)
			}
			if len(c.OptOut) > 0 {
				e.mustRun(t, 0, append([]string{"optout", "add"}, c.OptOut...)...)
			}
			var args []string
			change := c.NewGroup != "" || c.NewContact != nil // a change to the service: no request at all
			switch {
			case c.NewGroup != "":
				for _, g := range c.Known {
					if err := config.TrackGroup(paths, "test", g); err != nil {
						t.Fatal(err)
					}
				}
				args = []string{"groups", "create", c.NewGroup}
			case c.NewContact != nil:
				args = []string{"contacts", "add", "1", c.NewContact.Mobile, "--name", c.NewContact.Name}
			case c.Past != nil:
				c.Past(t, paths, e.env["SMSDESK_BASE_URL"])
				args = []string{"send-pair", "--resume", apptest.PastSendID, "--yes"}
			case c.Group != "":
				args = []string{"send-pair", "--group", c.Group.String(), "--template", c.Template, "--yes"}
			default:
				file := filepath.Join(e.dir, apptest.PairsFile)
				if err := os.WriteFile(file, []byte(c.Pairs), 0o600); err != nil {
					t.Fatal(err)
				}
				args = []string{"send-pair", "--file", file, "--yes"}
				switch {
				case c.RepeatProfile != "":
					base := e.env["SMSDESK_BASE_URL"]
					delete(e.env, "SMSDESK_BASE_URL") // the other profile's spelling of it
					e.mustRun(t, 0, append([]string{"--profile", c.RepeatProfile}, args...)...)
					e.env["SMSDESK_BASE_URL"] = base
				case c.Repeat:
					e.mustRun(t, 0, args...)
				}
			}
			before, all := e.sb.RequestsTo("POST", "/sms/send-pair"), e.sb.Requests()
			code, _, stderr := e.run(t, args...)
			if code != ExitUsage || !strings.Contains(strings.Join(strings.Fields(stderr), " "), c.Want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", code, stderr, c.Want)
			}
			if said := strings.Join(strings.Fields(stderr), " "); c.CLIHint != "" && !strings.Contains(said, "→ "+c.CLIHint) {
				t.Errorf("stderr does not say the CLI's hint %q:\n%s", c.CLIHint, stderr)
			}
			if c.Row != "" && !strings.Contains(stderr, c.Row) {
				t.Errorf("stderr does not show the bad row's %q:\n%s", c.Row, stderr)
			}
			if n := e.sb.RequestsTo("POST", "/sms/send-pair") - before; n != 0 {
				t.Errorf("%d send requests reached the service", n)
			}
			if n := e.sb.Requests() - all; change && n != 0 {
				t.Errorf("%d requests reached the service", n)
			}
		})
	}
}
