package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// Operators of `smsdesk serve`: who may sign in over SSH, with which public
// key and role. Managed on the server host; kept in the config directory.

func newCmdOperators(f *Factory) *cobra.Command {
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
	cmd.AddCommand(newCmdOperatorsAdd(f, nil), newCmdOperatorsList(f, nil), newCmdOperatorsRole(f, nil), newCmdOperatorsRemove(f, nil))
	return cmd
}

// operatorsOptions are what an operators command was asked: the
// operator's name, a role, a public key (or the file it is in).
type operatorsOptions struct {
	f            *Factory
	IO           *IOStreams
	Name, Role   string
	Key, KeyFile string
	JSON         bool // list
}

// newCmdOperatorsVerb is an operators command over operatorsOptions: NAME
// (and, for role, the role) set from args before runF runs.
func newCmdOperatorsVerb(f *Factory, cmd *cobra.Command, runF func(context.Context, *operatorsOptions) error) (*cobra.Command, *operatorsOptions) {
	o := &operatorsOptions{f: f, IO: f.IO}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			o.Name = args[0]
		}
		if len(args) > 1 {
			o.Role = args[1]
		}
		return runF(c.Context(), o)
	}
	return cmd, o
}

func newCmdOperatorsAdd(f *Factory, runF func(context.Context, *operatorsOptions) error) *cobra.Command {
	if runF == nil {
		runF = operatorsAddRun
	}
	cmd, o := newCmdOperatorsVerb(f, &cobra.Command{
		Use:   "add NAME --key \"ssh-ed25519 AAAA… comment\"",
		Short: "Let NAME sign in to `smsdesk serve` with an SSH public key",
		Example: "  smsdesk operators add sara --key \"ssh-ed25519 AAAAC3Nza… sara@laptop\"\n" +
			"  smsdesk operators add reza --key-file reza.pub --role viewer",
		Args: exactArgs(1, "NAME"),
	}, runF)
	fl := cmd.Flags()
	fl.StringVar(&o.Key, "key", "", "the operator's SSH public key, one line as in id_ed25519.pub")
	fl.StringVar(&o.KeyFile, "key-file", "", "read the public key from a file (e.g. sara.pub)")
	fl.StringVar(&o.Role, "role", string(model.RoleSender), "viewer, sender or admin")
	return cmd
}

// operatorsAddRun adds the operator with its key and role.
func operatorsAddRun(_ context.Context, o *operatorsOptions) error {
	r, err := model.ParseRole(o.Role)
	if err != nil {
		return usageError("--role: %v", err)
	}
	if (o.Key == "") == (o.KeyFile == "") {
		return usageError("operators add %s: pass the public key with --key \"ssh-ed25519 AAAA…\" or --key-file PATH (one of them)", model.SanitizeLine(o.Name))
	}
	if o.KeyFile != "" {
		data, err := os.ReadFile(o.KeyFile)
		if err != nil {
			return usageError("--key-file: %v", err)
		}
		o.Key = string(data)
	}
	paths, err := o.f.paths()
	if err != nil {
		return err
	}
	e, err := app.AddOperator(paths, config.OperatorEntry{Name: o.Name, Key: o.Key, Role: r, Added: time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		var fe *config.FileError
		if errors.As(err, &fe) {
			return err
		}
		return usageError("operators add: %v", err)
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ %s may sign in as %s (%s, key %s)\n", e.Name, e.Role, e.Fingerprint(), model.SanitizeLine(e.Comment()))
	fmt.Fprintf(o.IO.ErrOut, "  they connect with: ssh -p 2222 %s@HOST (once smsdesk serve runs)\n", e.Name)
	return nil
}

// operatorJSON is one operator in `operators list --json`.
type operatorJSON struct {
	Name        string     `json:"name"`
	Role        model.Role `json:"role"`
	Fingerprint string     `json:"fingerprint"`
	Comment     string     `json:"comment"`
	Added       *time.Time `json:"added"`
}

func newCmdOperatorsList(f *Factory, runF func(context.Context, *operatorsOptions) error) *cobra.Command {
	if runF == nil {
		runF = operatorsListRun
	}
	cmd, o := newCmdOperatorsVerb(f, &cobra.Command{
		Use:     "list",
		Short:   "List the operators, their roles and key fingerprints",
		Example: "  smsdesk operators list\n  smsdesk operators list --json",
		Args:    cobra.NoArgs,
	}, runF)
	addJSONFlag(cmd, &o.JSON, "print [{name, role, fingerprint, comment, added}]", operatorFields, "smsdesk operators list --json=name,role")
	return cmd
}

// operatorsListRun lists the operators.
func operatorsListRun(_ context.Context, o *operatorsOptions) error {
	paths, err := o.f.paths()
	if err != nil {
		return err
	}
	list, err := app.ReadOperators(paths)
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
	if o.JSON {
		return printJSON(o.IO.Out, out)
	}
	if len(out) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "No operators yet. Add one with `smsdesk operators add NAME --key \"ssh-ed25519 AAAA…\"`.")
		return nil
	}
	rows := make([][]string, len(out))
	for i, op := range out {
		rows[i] = []string{op.Name, string(op.Role), op.Fingerprint, op.Comment}
	}
	return o.IO.table(o.IO.Out, []string{"OPERATOR", "ROLE", "KEY FINGERPRINT", "COMMENT"}, rows)
}

func newCmdOperatorsRemove(f *Factory, runF func(context.Context, *operatorsOptions) error) *cobra.Command {
	if runF == nil {
		runF = operatorsRemoveRun
	}
	cmd, _ := newCmdOperatorsVerb(f, &cobra.Command{
		Use:     "remove NAME",
		Short:   "Stop NAME signing in (a running smsdesk serve closes their open sessions within a second)",
		Example: "  smsdesk operators remove sara",
		Args:    exactArgs(1, "NAME"),
	}, runF)
	return cmd
}

// operatorsRemoveRun removes the operator.
func operatorsRemoveRun(_ context.Context, o *operatorsOptions) error {
	paths, err := o.f.paths()
	if err != nil {
		return err
	}
	if err := app.RemoveOperator(paths, o.Name); err != nil {
		if errors.Is(err, config.ErrNoSuchOperator) {
			return usageError("operators remove: %v", err)
		}
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ %s can no longer sign in; a running smsdesk serve closes their open sessions\n", model.SanitizeLine(o.Name))
	return nil
}

func newCmdOperatorsRole(f *Factory, runF func(context.Context, *operatorsOptions) error) *cobra.Command {
	if runF == nil {
		runF = operatorsRoleRun
	}
	cmd, _ := newCmdOperatorsVerb(f, &cobra.Command{
		Use:     "role NAME viewer|sender|admin",
		Short:   "Give NAME another role (their open sessions have it from their next action)",
		Example: "  smsdesk operators role reza viewer",
		Args:    exactArgs(2, "NAME and a role"),
	}, runF)
	return cmd
}

// operatorsRoleRun gives the operator another role.
func operatorsRoleRun(_ context.Context, o *operatorsOptions) error {
	r, err := model.ParseRole(o.Role)
	if err != nil {
		return usageError("operators role: %v", err)
	}
	paths, err := o.f.paths()
	if err != nil {
		return err
	}
	if err := app.SetOperatorRole(paths, o.Name, r); err != nil {
		if errors.Is(err, config.ErrNoSuchOperator) {
			return usageError("operators role: %v", err)
		}
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "✓ %s's role is now %s; a running smsdesk serve applies it to their next action\n", model.SanitizeLine(o.Name), r)
	return nil
}
