package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// manCommand writes a man page per command, generated from the command tree so
// the pages never drift from --help: `smsdesk man ./man` then `man -l
// man/smsdesk.1`, or install them under a MANPATH directory's man1.
func (a *command) manCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "man DIR",
		Short:   "Write man pages for every command into DIR",
		Example: "  smsdesk man ./man && man -l ./man/smsdesk-send-pair.1",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("man pages: %w", err)
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true // no date line: the same tree gives the same pages
			header := &doc.GenManHeader{Title: "SMSDESK", Section: "1", Source: "smsdesk " + Version, Manual: "smsdesk manual"}
			if err := doc.GenManTree(root, header, dir); err != nil {
				return fmt.Errorf("man pages into %s: %w", dir, err)
			}
			fmt.Fprintf(a.IO.Out, "✓ man pages written to %s\n", dir)
			return nil
		},
	}
}
