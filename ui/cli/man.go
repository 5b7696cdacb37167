package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newCmdMan writes a man page per command, generated from the command tree so
// the pages never drift from --help: `smsdesk man ./man` then `man -l
// man/smsdesk.1`, or install them under a MANPATH directory's man1.
func newCmdMan(f *Factory, runF func(context.Context, *manOptions) error) *cobra.Command {
	o := &manOptions{IO: f.IO}
	if runF == nil {
		runF = manRun
	}
	return &cobra.Command{
		Use:     "man DIR",
		Short:   "Write man pages for every command into DIR",
		Example: "  smsdesk man ./man && man -l ./man/smsdesk-send-pair.1",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Dir, o.Root = args[0], cmd.Root()
			return runF(cmd.Context(), o)
		},
	}
}

// manOptions are what man was asked: the directory, and the command tree
// the pages are made of.
type manOptions struct {
	IO   *IOStreams
	Dir  string
	Root *cobra.Command
}

// manRun writes the pages.
func manRun(_ context.Context, o *manOptions) error {
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	o.Root.DisableAutoGenTag = true // no date line: the same tree gives the same pages
	header := &doc.GenManHeader{Title: "SMSDESK", Section: "1", Source: "smsdesk " + Version, Manual: "smsdesk manual"}
	if err := doc.GenManTree(o.Root, header, o.Dir); err != nil {
		return fmt.Errorf("man pages into %s: %w", o.Dir, err)
	}
	fmt.Fprintf(o.IO.Out, "✓ man pages written to %s\n", o.Dir)
	return nil
}
