package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// rejectUnknownSubcommands makes every command that only groups others
// (contacts, groups, config, …) refuse an unknown subcommand with exit 2 and
// suggestions, as the root does, instead of printing its help and exiting 0
// (a script's typo then went unnoticed).
func rejectUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		rejectUnknownSubcommands(sub)
	}
	if !c.HasSubCommands() || !c.HasParent() {
		return
	}
	if c.Run != nil || c.RunE != nil {
		// A command that runs itself and has subcommands (history, with
		// show and cancel): arguments it does not take are a mistyped
		// subcommand, suggested as the root's are ("history cancle" said
		// only "unknown command").
		if own := c.Args; own != nil {
			c.Args = func(cmd *cobra.Command, args []string) error {
				err := own(cmd, args)
				if err != nil && len(args) > 0 {
					return unknownCommand(cmd, args[0])
				}
				return err
			}
		}
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		return unknownCommand(cmd, args[0])
	}
}

// subcommandWord is the word given in args (smsdesk's, as given) where cmd
// expects one of its subcommands, when it is none of them ("lst" in
// "contacts lst --json"); "" when cmd has no subcommands or none was
// given. Flags are skipped as cobra skips them to find a command.
func subcommandWord(cmd *cobra.Command, args []string) string {
	if !cmd.HasSubCommands() {
		return ""
	}
	_, rest, err := cmd.Root().Find(args)
	if err != nil {
		return ""
	}
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		if w == "--" {
			return ""
		}
		if strings.HasPrefix(w, "-") {
			i += flagValueWords(cmd, w)
			continue
		}
		for _, sub := range cmd.Commands() {
			if sub.Name() == w || sub.HasAlias(w) {
				return ""
			}
		}
		return w
	}
	return ""
}

// flagValueWords is how many words after flag w are its value: 1 for a
// flag of cmd that takes a value given without "=" (--limit 20, -n 20),
// else 0.
func flagValueWords(cmd *cobra.Command, w string) int {
	switch {
	case strings.HasPrefix(w, "--"):
		name, _, hasValue := strings.Cut(w[2:], "=")
		if f := cmd.Flags().Lookup(name); f != nil && !hasValue && f.NoOptDefVal == "" {
			return 1
		}
	case len(w) == 2:
		if f := cmd.Flags().ShorthandLookup(w[1:]); f != nil && f.NoOptDefVal == "" {
			return 1
		}
	}
	return 0
}

// unknownCommand is the exit-2 error for a mistyped command, with cobra's
// suggestions (a prefix, or within two edits): "did you mean list?".
func unknownCommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra sets it on the root only
	}
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usageError("%s (see %s --help)", msg, cmd.CommandPath())
}
