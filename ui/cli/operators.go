package cli

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// Operators of `smsdesk serve`: who may sign in over SSH, with which public
// key and role. Managed on the server host; kept in the config directory.

func (a *command) operatorsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "operators",
		Short: "Add, list, change and remove the operators who may use `smsdesk serve`",
		Long: `Operators sign in to the console served by ` + "`smsdesk serve`" + ` with their own SSH
key: ssh -p 2222 NAME@host. Each has a role:

  viewer  browses groups, contacts and history
  sender  also adds and imports contacts, and sends (the default)
  admin   also creates groups and deletes contacts

They are kept, public keys only, in operators.toml in the config directory (0600).`,
	}
	cmd.AddCommand(a.operatorsAddCommand(), a.operatorsListCommand(), a.operatorsRoleCommand(), a.operatorsRemoveCommand())
	return cmd
}

func (a *command) operatorsAddCommand() *cobra.Command {
	var key, keyFile, role string
	cmd := &cobra.Command{
		Use:   "add NAME --key \"ssh-ed25519 AAAA… comment\"",
		Short: "Let NAME sign in to `smsdesk serve` with an SSH public key",
		Example: "  smsdesk operators add sara --key \"ssh-ed25519 AAAAC3Nza… sara@laptop\"\n" +
			"  smsdesk operators add reza --key-file reza.pub --role viewer",
		Args: exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := model.ParseRole(role)
			if err != nil {
				return usageError("--role: %v", err)
			}
			if (key == "") == (keyFile == "") {
				return usageError("operators add %s: pass the public key with --key \"ssh-ed25519 AAAA…\" or --key-file PATH (one of them)", model.SanitizeLine(args[0]))
			}
			if keyFile != "" {
				data, err := os.ReadFile(keyFile)
				if err != nil {
					return usageError("--key-file: %v", err)
				}
				key = string(data)
			}
			paths, err := a.paths()
			if err != nil {
				return err
			}
			e, err := config.AddOperator(paths, config.OperatorEntry{Name: args[0], Key: key, Role: r, Added: time.Now().UTC().Truncate(time.Second)})
			if err != nil {
				var fe *config.FileError
				if errors.As(err, &fe) {
					return err
				}
				return usageError("operators add: %v", err)
			}
			fmt.Fprintf(a.IO.ErrOut, "✓ %s may sign in as %s (%s, key %s)\n", e.Name, e.Role, e.Fingerprint(), model.SanitizeLine(e.Comment()))
			fmt.Fprintf(a.IO.ErrOut, "  they connect with: ssh -p 2222 %s@HOST (once smsdesk serve runs)\n", e.Name)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&key, "key", "", "the operator's SSH public key, one line as in id_ed25519.pub")
	f.StringVar(&keyFile, "key-file", "", "read the public key from a file (e.g. sara.pub)")
	f.StringVar(&role, "role", string(model.RoleSender), "viewer, sender or admin")
	return cmd
}

// operatorJSON is one operator in `operators list --json`.
type operatorJSON struct {
	Name        string     `json:"name"`
	Role        model.Role `json:"role"`
	Fingerprint string     `json:"fingerprint"`
	Comment     string     `json:"comment"`
	Added       *time.Time `json:"added"`
}

func (a *command) operatorsListCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the operators, their roles and key fingerprints",
		Example: "  smsdesk operators list\n  smsdesk operators list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, err := a.paths()
			if err != nil {
				return err
			}
			list, err := config.ReadOperators(paths)
			if err != nil {
				return err
			}
			out := make([]operatorJSON, len(list))
			for i, e := range list {
				out[i] = operatorJSON{Name: e.Name, Role: e.Role, Fingerprint: e.Fingerprint(), Comment: e.Comment()}
				if !e.Added.IsZero() {
					out[i].Added = &list[i].Added
				}
			}
			if asJSON {
				return printJSON(a.IO.Out, out)
			}
			if len(out) == 0 {
				fmt.Fprintln(a.IO.ErrOut, "No operators yet. Add one with `smsdesk operators add NAME --key \"ssh-ed25519 AAAA…\"`.")
				return nil
			}
			rows := make([][]string, len(out))
			for i, o := range out {
				rows[i] = []string{o.Name, string(o.Role), o.Fingerprint, o.Comment}
			}
			return a.IO.table(a.IO.Out, []string{"OPERATOR", "ROLE", "KEY FINGERPRINT", "COMMENT"}, rows)
		},
	}
	addJSONFlag(cmd, &asJSON, "print [{name, role, fingerprint, comment, added}]", operatorFields, "smsdesk operators list --json=name,role")
	return cmd
}

func (a *command) operatorsRemoveCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "remove NAME",
		Short:   "Stop NAME signing in (a running smsdesk serve closes their open sessions within a second)",
		Example: "  smsdesk operators remove sara",
		Args:    exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, err := a.paths()
			if err != nil {
				return err
			}
			if err := config.RemoveOperator(paths, args[0]); err != nil {
				if errors.Is(err, config.ErrNoSuchOperator) {
					return usageError("operators remove: %v", err)
				}
				return err
			}
			fmt.Fprintf(a.IO.ErrOut, "✓ %s can no longer sign in; a running smsdesk serve closes their open sessions\n", model.SanitizeLine(args[0]))
			return nil
		},
	}
}

func (a *command) operatorsRoleCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "role NAME viewer|sender|admin",
		Short:   "Give NAME another role (their open sessions have it from their next action)",
		Example: "  smsdesk operators role reza viewer",
		Args:    exactArgs(2, "NAME and a role"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := model.ParseRole(args[1])
			if err != nil {
				return usageError("operators role: %v", err)
			}
			paths, err := a.paths()
			if err != nil {
				return err
			}
			if err := config.SetOperatorRole(paths, args[0], r); err != nil {
				if errors.Is(err, config.ErrNoSuchOperator) {
					return usageError("operators role: %v", err)
				}
				return err
			}
			fmt.Fprintf(a.IO.ErrOut, "✓ %s's role is now %s; a running smsdesk serve applies it to their next action\n", model.SanitizeLine(args[0]), r)
			return nil
		},
	}
}
