package cli

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// linesFields are `lines --json`'s keys, in order.
var linesFields = []string{"line", "kind", "default", "listed", "sent", "set_at", "set_by", "rules"}

// lineJSON is one line of `lines --json`.
type lineJSON struct {
	Line    string  `json:"line"`
	Kind    *string `json:"kind"` // service, advertising, or null: none recorded
	Default bool    `json:"default"`
	Listed  bool    `json:"listed"`
	Sent    bool    `json:"sent"`
	SetAt   *string `json:"set_at"` // RFC 3339 in the profile's timezone, null when no kind
	SetBy   *string `json:"set_by"` // the operator of a served console, null at a local terminal
	Rules   string  `json:"rules"`
}

// linesOptions are what a lines command was asked.
type linesOptions struct {
	f    *Factory
	IO   *IOStreams
	JSON bool
	Line string
	Kind string
	// Unset: `lines unset LINE` (clear the kind), not set.
	Unset bool
}

func newCmdLines(f *Factory, runF func(context.Context, *linesOptions) error) *cobra.Command {
	o := &linesOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = linesRun
	}
	cmd := &cobra.Command{
		Use:   "lines",
		Short: "The profile's sender lines and their kinds (service, advertising)",
		Long: `Lists the lines the profile knows (its sender, its senders, the lines its sends
went from, and every line with a recorded kind) with their kind and what the
kind adds to the profile's rules:

  advertising  quiet hours 22:00–07:00 Asia/Tehran for MCI numbers (0910–0919,
               0990–0994): a send with any MCI recipient waits for 07:00
  service      no quiet hours of its own; every message ends with «لغو۱۱» (the
               profile's optout_suffix spelling where set)
  (none)       the profile's settings, as before

The profile's own quiet_hours hold on every line: a send waits while either
window is on. The kind is the account's, kept in the ledger.`,
		Example: "  smsdesk lines\n  smsdesk lines set 3000505 --kind advertising\n  smsdesk lines unset 3000505\n  smsdesk lines --json",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return runF(cmd.Context(), o) },
	}
	addJSONFlag(cmd, &o.JSON, "print as JSON", linesFields, "smsdesk lines --json=line,kind")
	cmd.AddCommand(newCmdLinesSet(f, nil), newCmdLinesUnset(f, nil))
	return cmd
}

func newCmdLinesSet(f *Factory, runF func(context.Context, *linesOptions) error) *cobra.Command {
	o := &linesOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = linesSetRun
	}
	cmd := &cobra.Command{
		Use:   "set LINE --kind service|advertising",
		Short: "Record a line's kind",
		Long: `Records the kind of LINE on the account: every send from it prepared from now
on keeps its rules (see smsdesk lines --help); a send whose question is open
is refused as it starts. Recorded in the audit trail. On a served console it
needs the admin role. To clear a kind: smsdesk lines unset LINE.`,
		Example: "  smsdesk lines set 3000505 --kind advertising\n  smsdesk lines set 10004346 --kind service",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Line = args[0]
			return runF(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.Kind, "kind", "", "service or advertising")
	return cmd
}

func newCmdLinesUnset(f *Factory, runF func(context.Context, *linesOptions) error) *cobra.Command {
	o := &linesOptions{f: f, IO: f.IO, Unset: true}
	if runF == nil {
		runF = linesSetRun
	}
	return &cobra.Command{
		Use:     "unset LINE",
		Short:   "Clear a line's kind: the profile's settings hold for it again",
		Example: "  smsdesk lines unset 3000505",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Line = args[0]
			return runF(cmd.Context(), o)
		},
	}
}

// linesRun lists the profile's lines through the application layer.
func linesRun(ctx context.Context, o *linesOptions) error {
	s, err := o.f.session(ctx)
	if err != nil {
		return err
	}
	lines, err := s.App.Lines(ctx)
	if err != nil {
		return refused(err)
	}
	if o.JSON {
		out := make([]lineJSON, len(lines))
		for i, l := range lines {
			out[i] = lineJSON{Line: l.Line, Kind: nullable(string(l.Kind)), Default: l.Default, Listed: l.Listed, Sent: l.Sent,
				SetBy: nullable(l.SetBy), Rules: l.Rules}
			if !l.SetAt.IsZero() {
				out[i].SetAt = nullable(l.SetAt.Format(time.RFC3339))
			}
		}
		return printJSON(o.IO.Out, out)
	}
	if len(lines) == 0 {
		printf(o.IO.ErrOut, "profile %s knows no lines: set its sender (smsdesk config set sender LINE) or a line's kind (smsdesk lines set LINE --kind service|advertising)\n", s.ProfileName)
		return nil
	}
	rows := make([][]string, len(lines))
	for i, l := range lines {
		rows[i] = []string{l.Line, orDash(string(l.Kind)), lineKnownAs(l), l.Rules}
	}
	return o.IO.table(o.IO.Out, []string{"LINE", "KIND", "KNOWN AS", "RULES"}, rows)
}

// lineKnownAs says how the profile knows a line: "sender, sent".
func lineKnownAs(l app.Line) string {
	var w []string
	if l.Default {
		w = append(w, "sender")
	}
	if l.Listed {
		w = append(w, "senders")
	}
	if l.Sent {
		w = append(w, "sent from")
	}
	if len(w) == 0 {
		return "kind only"
	}
	return strings.Join(w, ", ")
}

// linesSetRun records (set --kind) or clears (unset) a line's kind.
func linesSetRun(ctx context.Context, o *linesOptions) error {
	var kind model.LineKind
	if !o.Unset {
		if o.Kind == "" {
			return usageError("lines set needs --kind service or --kind advertising (to clear a kind: smsdesk lines unset LINE)")
		}
		k, err := model.ParseLineKind(o.Kind)
		if err != nil {
			return usageError("--kind: %w (to clear a kind: smsdesk lines unset LINE)", err)
		}
		kind = k
	}
	if err := app.CheckLineArg("LINE", o.Line); err != nil {
		return refused(err)
	}
	s, err := o.f.session(ctx)
	if err != nil {
		return err
	}
	was, err := s.App.SetLineKind(ctx, o.Line, kind)
	if err != nil {
		return refused(err)
	}
	switch {
	case kind == "":
		printf(o.IO.ErrOut, "line %s: kind cleared (was %s); the profile's settings hold for it\n", model.SanitizeLine(o.Line), orNoneWord(string(was)))
	default:
		printf(o.IO.ErrOut, "line %s: %s (was %s): %s\n", model.SanitizeLine(o.Line), kind, orNoneWord(string(was)), model.KindText(kind, s.App.Profile.Suffix))
	}
	return nil
}

func orNoneWord(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
