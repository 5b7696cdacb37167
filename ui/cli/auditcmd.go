package cli

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// auditFields are `audit --json`'s keys, in order.
var auditFields = []string{"seq", "time", "operator", "action", "what", "details", "record"}

// auditJSON is one record of `audit --json`.
type auditJSON struct {
	Seq      int64              `json:"seq"`
	Time     string             `json:"time"`
	Operator *model.Operator    `json:"operator"` // null: this host's own terminal
	Action   string             `json:"action"`
	What     string             `json:"what"`
	Details  string             `json:"details"`
	Record   config.AuditRecord `json:"record"`
}

// auditOptions are what `smsdesk audit` was asked.
type auditOptions struct {
	f        *Factory
	IO       *IOStreams
	JSON     bool
	Since    string
	Operator string
	Limit    int
}

func newCmdAudit(f *Factory, runF func(context.Context, *auditOptions) error) *cobra.Command {
	o := &auditOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = auditRun
	}
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Who did what: the audit trail, newest first",
		Long: `Lists the audit trail kept in the ledger, newest first: every change besides
sending (contacts added, imported and deleted, groups created and tracked,
numbers opted out and taken off the list, exports, sends through quiet hours,
scheduled sends cancelled), by whom (an operator of smsdesk serve, or this
host's own terminal) and when, in the profile's timezone. The newest 50 unless
--limit says otherwise (--limit 0: every record). On smsdesk serve, reading
the trail needs the admin role; here it is this host's user's.`,
		Example: "  smsdesk audit\n  smsdesk audit --since 24h --operator sara\n  smsdesk audit --limit 0 --json",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return runF(cmd.Context(), o) },
	}
	addJSONFlag(cmd, &o.JSON, "print as JSON", auditFields, "smsdesk audit --json=time,operator,action")
	cmd.Flags().StringVar(&o.Since, "since", "", "only records since then: a duration (24h, 7d) or a date (2026-11-01, in the profile's timezone)")
	cmd.Flags().StringVar(&o.Operator, "operator", "", "only the records of this operator of smsdesk serve")
	cmd.Flags().IntVar(&o.Limit, "limit", app.DefaultAuditLimit, "list at most N records, the newest (0: every one)")
	return cmd
}

// auditRun reads the trail through the application layer and prints it.
func auditRun(ctx context.Context, o *auditOptions) error {
	if o.Limit < 0 {
		return usageError("--limit %d: give a positive number (0 lists every record)", o.Limit)
	}
	if o.Operator != "" {
		if err := model.CheckOperatorName(o.Operator); err != nil {
			return usageError("--operator: %w", err)
		}
	}
	s, err := o.f.local()
	if err != nil {
		return err
	}
	zone := s.App.Profile.Zone()
	since, err := parseSinceIn(o.Since, o.f.now(), zone)
	if err != nil {
		return err
	}
	q := app.AuditQuery{Since: since, Operator: o.Operator, Limit: o.Limit, All: o.Limit == 0}
	events, err := s.App.Audit(ctx, q)
	if err != nil {
		return refused(err)
	}
	if o.JSON {
		out := make([]auditJSON, len(events))
		for i, e := range events {
			out[i] = auditJSON{Seq: e.Seq, Time: e.Time.Format(time.RFC3339), Operator: e.Operator, Action: e.Action, What: e.What, Details: e.Details, Record: e.Record}
		}
		return printJSON(o.IO.Out, out)
	}
	if len(events) == 0 {
		printf(o.IO.ErrOut, "no audit records%s\n", auditFilterText(*o))
		return nil
	}
	rows := make([][]string, len(events))
	for i, e := range events {
		rows[i] = []string{e.Time.Format("2006-01-02 15:04:05 MST"), auditOperator(e.Operator), e.What, e.Details}
	}
	return o.IO.table(o.IO.Out, []string{"TIME", "OPERATOR", "WHAT", "DETAILS"}, rows)
}

// auditOperator is who did it, for the table: an operator's name, or this
// host's terminal.
func auditOperator(op *model.Operator) string {
	if op == nil {
		return "(this host)"
	}
	return op.Name
}

// auditFilterText says what an empty list was filtered by.
func auditFilterText(o auditOptions) string {
	s := ""
	if o.Operator != "" {
		s += " by " + model.SanitizeLine(o.Operator)
	}
	if o.Since != "" {
		s += " since " + model.SanitizeLine(o.Since)
	}
	return s
}

// parseSinceIn reads --since: a duration back from now (90m, 24h, 7d) or a
// date, midnight in loc.
func parseSinceIn(since string, now time.Time, loc *time.Location) (time.Time, error) {
	if since == "" {
		return time.Time{}, nil
	}
	if d, err := config.ParseWindow(since); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation("2006-01-02", since, loc); err == nil {
		return t, nil
	}
	return time.Time{}, usageError("--since %q: give a duration (90m, 24h, 7d) or a date (2026-11-01)", since)
}
