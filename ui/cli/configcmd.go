package cli

import (
	"context"

	"github.com/spf13/cobra"
)

// config: smsdesk's files (path) and the profile's settings (get, set,
// unset; the settings themselves are configsettings.go's table).

func newCmdConfig(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show smsdesk's files and change the profile's settings",
	}
	cmd.AddCommand(newCmdConfigPath(f, nil), newCmdConfigSet(f, nil), newCmdConfigUnset(f, nil), newCmdConfigGet(f, nil))
	return cmd
}

// configOptions are what a config command was asked: a setting and its
// value (set), --json (path, get).
type configOptions struct {
	f       *Factory
	IO      *IOStreams
	Setting string
	Value   string
	JSON    bool
	// Given: a SETTING was named (get without one lists every setting).
	Given bool
}

// newCmdConfigVerb is a config command over configOptions: SETTING and
// VALUE (as many as it takes) set from args before runF runs.
func newCmdConfigVerb(f *Factory, cmd *cobra.Command, runF func(context.Context, *configOptions) error) (*cobra.Command, *configOptions) {
	o := &configOptions{f: f, IO: f.IO}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		o.Given = len(args) > 0
		if len(args) > 0 {
			o.Setting = args[0]
		}
		if len(args) > 1 {
			o.Value = args[1]
		}
		return runF(c.Context(), o)
	}
	return cmd, o
}

func newCmdConfigPath(f *Factory, runF func(context.Context, *configOptions) error) *cobra.Command {
	if runF == nil {
		runF = configPathRun
	}
	cmd, o := newCmdConfigVerb(f, &cobra.Command{
		Use:   "path",
		Short: "Print every path smsdesk uses (config, credentials, state, logs)",
		Args:  cobra.NoArgs,
	}, runF)
	addJSONFlag(cmd, &o.JSON, "print the paths as JSON", configPathFields, "smsdesk config path --json=key,path")
	return cmd
}

// configPathRun prints every path smsdesk uses and whether it exists.
func configPathRun(_ context.Context, o *configOptions) error {
	s, err := o.f.local()
	if err != nil {
		return err
	}
	infos := s.Paths.Describe()
	if o.JSON {
		return printJSON(o.IO.Out, infos)
	}
	rows := make([][]string, len(infos))
	for i, p := range infos {
		state := "missing"
		if p.Exists {
			state = "exists"
		}
		rows[i] = []string{p.Name, p.Path, state}
	}
	return o.IO.table(o.IO.Out, []string{"WHAT", "PATH", ""}, rows)
}
