package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
)

// Profiles from the command line: `login --profile NAME` and `profiles add`
// create one, the first becomes active; use, remove and list. Every change
// goes through config.Update, under the config file's lock.

func (a *command) profilesCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "Add, list, switch and remove profiles",
		Long: `A profile is one account on one deployment of the service: a base URL, its
sender lines and settings, and a key stored under its name. The first profile
created becomes the active one; --profile NAME or $SMSDESK_PROFILE picks another
for one command.`,
	}
	cmd.AddCommand(a.profilesListCommand(), a.profilesAddCommand(), a.profilesUseCommand(), a.profilesRemoveCommand())
	return cmd
}

func (a *command) profilesListCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List profiles (* marks the one in use)",
		Example: "  smsdesk profiles list\n  smsdesk profiles list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, err := a.paths()
			if err != nil {
				return err
			}
			cfg, err := config.Load(paths)
			if err != nil {
				return err
			}
			inUse, _, _ := cfg.Resolve(a.profileFlag, a.Getenv(config.EnvProfile))
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
			if asJSON {
				return printJSON(a.IO.Out, out)
			}
			if len(out) == 0 {
				fmt.Fprintln(a.IO.ErrOut, "No profiles yet. Create one with `smsdesk login --profile NAME --base-url URL` or `smsdesk profiles add NAME --base-url URL`.")
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
			return a.IO.table(a.IO.Out, []string{"", "PROFILE", "BASE URL", "SENDER"}, rows)
		},
	}
	addJSONFlag(cmd, &asJSON, "print [{name, active, base_url, sender}]", profilesFields, "smsdesk profiles list --json=name,active")
	return cmd
}

func (a *command) profilesAddCommand() *cobra.Command {
	var baseURL, sender, senders string
	var use bool
	cmd := &cobra.Command{
		Use:     "add NAME --base-url URL",
		Short:   "Create a profile (its key is stored with `smsdesk login --profile NAME`)",
		Example: "  smsdesk profiles add test --base-url https://sms.example.com/v1 --sender 3000505\n  smsdesk login --profile test",
		Args:    exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if baseURL == "" {
				return usageError("profiles add %s: pass --base-url URL (e.g. https://sms.example.com/v1)", name)
			}
			paths, err := a.paths()
			if err != nil {
				return err
			}
			active := false
			_, err = config.Update(paths, func(c *config.Config) error {
				if c.Profile(name) != nil {
					return usageError("profile %q exists already (see `smsdesk profiles list`; change it with `smsdesk --profile %s config set …`)", name, name)
				}
				p := &config.Profile{Name: name, BaseURL: baseURL, Sender: sender, Senders: splitList(senders)}
				if err := c.SetProfile(p); err != nil {
					return usageError("%w", err)
				}
				if c.Active == "" || use {
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
			fmt.Fprintln(a.IO.ErrOut, msg)
			fmt.Fprintf(a.IO.ErrOut, "Next: store its key with `smsdesk login --profile %s`\n", name)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&baseURL, "base-url", "", "the service's base URL")
	f.StringVar(&sender, "sender", "", "the default sender line")
	f.StringVar(&senders, "senders", "", "the account's sender lines, comma-separated")
	f.BoolVar(&use, "use", false, "make it the active profile (the first profile always is)")
	return cmd
}

func (a *command) profilesUseCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "use NAME",
		Short:   "Make NAME the active profile",
		Example: "  smsdesk profiles use test",
		Args:    exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, err := a.paths()
			if err != nil {
				return err
			}
			if _, err := config.Update(paths, func(c *config.Config) error {
				if err := c.Use(args[0]); err != nil {
					return usageError("%w", err)
				}
				return nil
			}); err != nil {
				return err
			}
			fmt.Fprintf(a.IO.ErrOut, "✓ Active profile: %s\n", args[0])
			if env := a.Getenv(config.EnvProfile); env != "" && env != args[0] {
				printf(a.IO.ErrOut, "! SMSDESK_PROFILE=%s is set in this environment and takes precedence\n", env)
			}
			return nil
		},
	}
}

func (a *command) profilesRemoveCommand() *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a profile, its stored key and its cached contacts",
		Long: `Removes the profile from the config file, deletes its key from the keyring
(or the credentials file) and its cached contacts. Its send history stays
(smsdesk history). Removing the active profile leaves none active: the next
command says so, or pick one with ` + "`smsdesk profiles use NAME`" + `.`,
		Example: "  smsdesk profiles remove old\n  smsdesk profiles remove old --yes",
		Args:    exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			paths, err := a.paths()
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
			if !yes {
				ok, err := a.IO.Confirm(fmt.Sprintf("Remove profile %s and its stored key?", name), "--yes")
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
			if _, err := a.secrets(paths).Delete(name); err != nil {
				fmt.Fprintf(a.IO.ErrOut, "! could not remove the stored key of %s: %s\n", name, cleanError(err))
			}
			if err := config.ForgetCachedContacts(paths, name); err != nil {
				fmt.Fprintf(a.IO.ErrOut, "! %s\n", cleanError(err))
			}
			fmt.Fprintf(a.IO.ErrOut, "✓ Removed profile %s (its send history stays)\n", name)
			if wasActive && len(left) > 0 {
				fmt.Fprintf(a.IO.ErrOut, "No profile is active now; pick one: smsdesk profiles use %s\n", strings.Join(left, " | "))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "do not ask")
	return cmd
}
