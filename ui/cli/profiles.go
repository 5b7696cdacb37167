package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/ui/app"
)

// Profiles from the command line: `login --profile NAME` and `profiles add`
// create one, the first becomes active; use, remove and list. Every change
// goes through config.Update, under the config file's lock.

func newCmdProfiles(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "Add, list, switch and remove profiles",
		Long: `A profile is one account on one deployment of the service: a base URL, its
sender lines and settings, and a key stored under its name. The first profile
created becomes the active one; --profile NAME or $SMSDESK_PROFILE picks another
for one command.`,
	}
	cmd.AddCommand(newCmdProfilesList(f, nil), newCmdProfilesAdd(f, nil), newCmdProfilesUse(f, nil), newCmdProfilesRemove(f, nil))
	return cmd
}

// profilesOptions are what a profiles command was asked.
type profilesOptions struct {
	f    *Factory
	IO   *IOStreams
	Name string
	JSON bool // list
	// add: the new profile's settings, and whether it becomes the active one.
	BaseURL, Sender, Senders string
	Use                      bool
	Yes                      bool // remove without asking
}

// newCmdProfilesVerb is a profiles command over profilesOptions: the
// profile's name (args[0], when it takes one) set before runF runs.
func newCmdProfilesVerb(f *Factory, cmd *cobra.Command, runF func(context.Context, *profilesOptions) error) (*cobra.Command, *profilesOptions) {
	o := &profilesOptions{f: f, IO: f.IO}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			o.Name = args[0]
		}
		return runF(c.Context(), o)
	}
	return cmd, o
}

func newCmdProfilesList(f *Factory, runF func(context.Context, *profilesOptions) error) *cobra.Command {
	if runF == nil {
		runF = profilesListRun
	}
	cmd, o := newCmdProfilesVerb(f, &cobra.Command{
		Use:     "list",
		Short:   "List profiles (* marks the one in use)",
		Example: "  smsdesk profiles list\n  smsdesk profiles list --json",
		Args:    cobra.NoArgs,
	}, runF)
	addJSONFlag(cmd, &o.JSON, "print [{name, active, base_url, sender}]", profilesFields, "smsdesk profiles list --json=name,active")
	return cmd
}

// profilesListRun lists the profiles, the one in use marked.
func profilesListRun(_ context.Context, o *profilesOptions) error {
	paths, err := o.f.paths()
	if err != nil {
		return err
	}
	cfg, err := config.Load(paths)
	if err != nil {
		return err
	}
	inUse, _, _ := cfg.Resolve(o.f.profileFlag, o.f.Getenv(config.EnvProfile))
	type row struct {
		Name    string `json:"name"`
		Active  bool   `json:"active"` // the one commands use now
		BaseURL string `json:"base_url"`
		Sender  string `json:"sender"`
	}
	out := []row{}
	for _, n := range cfg.Names() {
		p := cfg.Profiles[n]
		out = append(out, row{Name: n, Active: n == inUse, BaseURL: p.BaseURL, Sender: p.Sender})
	}
	if o.JSON {
		return printJSON(o.IO.Out, out)
	}
	if len(out) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "No profiles yet. Create one with `smsdesk login --profile NAME --base-url URL` or `smsdesk profiles add NAME --base-url URL`.")
		return nil
	}
	rows := make([][]string, len(out))
	for i, r := range out {
		mark := " "
		if r.Active {
			mark = "*"
		}
		rows[i] = []string{mark, r.Name, r.BaseURL, r.Sender}
	}
	return o.IO.table(o.IO.Out, []string{"", "PROFILE", "BASE URL", "SENDER"}, rows)
}

func newCmdProfilesAdd(f *Factory, runF func(context.Context, *profilesOptions) error) *cobra.Command {
	if runF == nil {
		runF = profilesAddRun
	}
	cmd, o := newCmdProfilesVerb(f, &cobra.Command{
		Use:     "add NAME --base-url URL",
		Short:   "Create a profile (its key is stored with `smsdesk login --profile NAME`)",
		Example: "  smsdesk profiles add test --base-url https://sms.example.com/v1 --sender 3000505\n  smsdesk login --profile test",
		Args:    exactArgs(1, "NAME"),
	}, runF)
	fl := cmd.Flags()
	fl.StringVar(&o.BaseURL, "base-url", "", "the service's base URL")
	fl.StringVar(&o.Sender, "sender", "", "the default sender line")
	fl.StringVar(&o.Senders, "senders", "", "the account's sender lines, comma-separated")
	fl.BoolVar(&o.Use, "use", false, "make it the active profile (the first profile always is)")
	return cmd
}

// profilesAddRun creates the profile in the config file.
func profilesAddRun(_ context.Context, o *profilesOptions) error {
	name := o.Name
	if o.BaseURL == "" {
		return usageError("profiles add %s: pass --base-url URL (e.g. https://sms.example.com/v1)", name)
	}
	paths, err := o.f.paths()
	if err != nil {
		return err
	}
	active := false
	_, err = config.Update(paths, func(c *config.Config) error {
		if c.Profile(name) != nil {
			return usageError("profile %q exists already (see `smsdesk profiles list`; change it with `smsdesk --profile %s config set …`)", name, name)
		}
		p := &config.Profile{Name: name, BaseURL: o.BaseURL, Sender: o.Sender, Senders: splitList(o.Senders)}
		if err := c.SetProfile(p); err != nil {
			return usageError("%w", err)
		}
		if c.Active == "" || o.Use {
			active = true
			return c.Use(name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	msg := "✓ Created profile " + name
	if active {
		msg += " (active)"
	}
	fmt.Fprintln(o.IO.ErrOut, msg)
	fmt.Fprintf(o.IO.ErrOut, "Next: store its key with `smsdesk login --profile %s`\n", name)
	return nil
}

func newCmdProfilesUse(f *Factory, runF func(context.Context, *profilesOptions) error) *cobra.Command {
	if runF == nil {
		runF = profilesUseRun
	}
	cmd, _ := newCmdProfilesVerb(f, &cobra.Command{
		Use:     "use NAME",
		Short:   "Make NAME the active profile",
		Example: "  smsdesk profiles use test",
		Args:    exactArgs(1, "NAME"),
	}, runF)
	return cmd
}

// profilesUseRun makes the profile the active one.
func profilesUseRun(_ context.Context, o *profilesOptions) error {
	paths, err := o.f.paths()
	if err != nil {
		return err
	}
	if _, err := config.Update(paths, func(c *config.Config) error {
		if err := c.Use(o.Name); err != nil {
			return usageError("%w", err)
		}
		return nil
	}); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Active profile: %s\n", o.Name)
	if env := o.f.Getenv(config.EnvProfile); env != "" && env != o.Name {
		printf(o.IO.ErrOut, "! SMSDESK_PROFILE=%s is set in this environment and takes precedence\n", env)
	}
	return nil
}

func newCmdProfilesRemove(f *Factory, runF func(context.Context, *profilesOptions) error) *cobra.Command {
	if runF == nil {
		runF = profilesRemoveRun
	}
	cmd, o := newCmdProfilesVerb(f, &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a profile, its stored key and its cached contacts",
		Long: `Removes the profile from the config file, deletes its key from the keyring
(or the credentials file) and its cached contacts. Its send history stays
(smsdesk history). Removing the active profile leaves none active: the next
command says so, or pick one with ` + "`smsdesk profiles use NAME`" + `.`,
		Example: "  smsdesk profiles remove old\n  smsdesk profiles remove old --yes",
		Args:    exactArgs(1, "NAME"),
	}, runF)
	cmd.Flags().BoolVar(&o.Yes, "yes", false, "do not ask")
	return cmd
}

// profilesRemoveRun removes the profile, its key and its cached contacts.
func profilesRemoveRun(_ context.Context, o *profilesOptions) error {
	name := o.Name
	paths, err := o.f.paths()
	if err != nil {
		return err
	}
	cfg, err := config.Load(paths)
	if err != nil {
		return err
	}
	if cfg.Profile(name) == nil {
		return usageError("no profile named %q (see `smsdesk profiles list`)", name)
	}
	if !o.Yes {
		ok, err := o.IO.Confirm(fmt.Sprintf("Remove profile %s and its stored key?", name), "--yes")
		if err != nil {
			return err
		}
		if !ok {
			return withCode(ExitUsage, errors.New("nothing removed"))
		}
	}
	var left []string
	wasActive := false
	if _, err := config.Update(paths, func(c *config.Config) error {
		wasActive = c.Active == name
		if !c.RemoveProfile(name) {
			return usageError("no profile named %q (removed meanwhile?)", name)
		}
		left = c.Names()
		return nil
	}); err != nil {
		return err
	}
	if _, err := o.f.secrets(paths).Delete(name); err != nil {
		fmt.Fprintf(o.IO.ErrOut, "! could not remove the stored key of %s: %s\n", name, cleanError(err))
	}
	if err := app.ForgetCachedContacts(paths, name); err != nil {
		fmt.Fprintf(o.IO.ErrOut, "! %s\n", cleanError(err))
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ Removed profile %s (its send history stays)\n", name)
	if wasActive && len(left) > 0 {
		fmt.Fprintf(o.IO.ErrOut, "No profile is active now; pick one: smsdesk profiles use %s\n", strings.Join(left, " | "))
	}
	return nil
}
