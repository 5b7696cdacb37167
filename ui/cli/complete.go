package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// Dynamic shell completion (`smsdesk completion bash|zsh|fish|powershell`):
// profile names, group ids, send ids and setting names come from this
// machine's own files. Completion never reaches the service and never prints
// a warning: a broken file just completes nothing.

// wireCompletion attaches the completion functions to the commands and flags
// that take those values.
func (f *Factory) wireCompletion(root *cobra.Command) {
	_ = root.RegisterFlagCompletionFunc("profile", f.completeProfiles) // the root has it: cannot fail
	// GROUP_ID, then FILE: the shell's own file completion.
	groupThenFile := func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return f.completeGroups(cmd, args, toComplete)
		}
		return nil, cobra.ShellCompDirectiveDefault
	}
	for _, a := range []struct {
		path     []string
		complete completeFunc
	}{
		{[]string{"contacts", "list"}, firstArgOnly(f.completeGroups)},
		{[]string{"contacts", "add"}, firstArgOnly(f.completeGroups)},
		{[]string{"groups", "untrack"}, firstArgOnly(f.completeGroups)},
		{[]string{"contacts", "import"}, groupThenFile},
		{[]string{"history", "show"}, firstArgOnly(f.completeSends)},
		{[]string{"config", "get"}, firstArgOnly(completeSettings)},
		{[]string{"config", "set"}, firstArgOnly(completeSettings)},
		{[]string{"profiles", "use"}, firstArgOnly(f.completeProfiles)},
		{[]string{"profiles", "remove"}, firstArgOnly(f.completeProfiles)},
	} {
		if c := findCommand(root, a.path...); c != nil {
			c.ValidArgsFunction = a.complete
		}
	}
	for _, fl := range []struct {
		path     []string
		flag     string
		complete completeFunc
	}{
		{[]string{"send-pair"}, "group", f.completeGroups},
		{[]string{"contacts", "import"}, "group", f.completeGroups},
		{[]string{"send-pair"}, "resume", f.completeSends},
	} {
		if c := findCommand(root, fl.path...); c != nil && c.Flags().Lookup(fl.flag) != nil {
			_ = c.RegisterFlagCompletionFunc(fl.flag, fl.complete) // the flag is there: cannot fail
		}
	}
}

// findCommand returns the command at path below root, or nil.
func findCommand(root *cobra.Command, path ...string) *cobra.Command {
	c := root
	for _, name := range path {
		var next *cobra.Command
		for _, sub := range c.Commands() {
			if sub.Name() == name {
				next = sub
				break
			}
		}
		if next == nil {
			return nil
		}
		c = next
	}
	return c
}

type completeFunc = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective)

// firstArgOnly completes the first positional argument with f, and nothing after it.
func firstArgOnly(f completeFunc) completeFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return f(cmd, args, toComplete)
	}
}

// quietConfig loads paths and config for completion, without warnings.
func (f *Factory) quietConfig() (config.Paths, *config.Config, bool) {
	paths, err := f.paths()
	if err != nil {
		return config.Paths{}, nil, false
	}
	cfg, err := config.Load(paths)
	if err != nil {
		return paths, nil, false
	}
	return paths, cfg, true
}

func (f *Factory) completeProfiles(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	_, cfg, ok := f.quietConfig()
	if !ok {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, name := range cfg.Names() {
		if strings.HasPrefix(name, toComplete) {
			out = append(out, name)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeGroups offers the groups the profile tracks, "ID\tname".
func (f *Factory) completeGroups(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	paths, cfg, ok := f.quietConfig()
	if !ok {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	name, _, err := cfg.Resolve(f.profileFlag, f.Getenv(config.EnvProfile))
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	groups, err := app.KnownGroupsOf(paths, name)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, g := range groups {
		id := model.SanitizeLine(g.ID.String())
		if strings.HasPrefix(id, toComplete) {
			out = append(out, id+"\t"+completionText(g.Name))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeSendsLimit is how many send ids a completion offers at most:
// the newest of those that begin with what is typed.
const completeSendsLimit = 100

// completeSends offers the send ids in the history, newest first, "ID\tsummary".
func (f *Factory) completeSends(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	paths, cfg, ok := f.quietConfig()
	if !ok && paths.StateDir == "" {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	loc, _ := model.LoadTimezone("")
	if cfg != nil {
		if _, prof, err := cfg.Resolve(f.profileFlag, f.Getenv(config.EnvProfile)); err == nil && prof != nil {
			if l, err := prof.Location(); err == nil {
				loc = l
			}
		}
	}
	// The newest sends whose id begins with what is typed, from the
	// ledger's index: a tab press replays a page, not every send.
	list, err := app.SendsStartingWith(cmd.Context(), paths, toComplete, completeSendsLimit)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, j := range list {
		id := model.SanitizeLine(j.ID)
		desc := "unreadable"
		if j.Readable {
			desc = fmtTime(j.Time, loc) + " · " + j.Status
		}
		out = append(out, id+"\t"+completionText(desc))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func completeSettings(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, s := range profileSettings {
		if strings.HasPrefix(s.name, toComplete) {
			out = append(out, s.name+"\t"+completionText(s.help))
		}
	}
	for _, s := range consoleSettings {
		if strings.HasPrefix(s.name, toComplete) {
			out = append(out, s.name+"\t"+completionText(s.help))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completionText is a description safe for a completion line: one line, no
// tabs or controls, not too long.
func completionText(s string) string {
	s = strings.ReplaceAll(model.SanitizeLine(s), "\t", " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}
