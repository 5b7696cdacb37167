package cli

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/ui/app"
)

// historyOptions are what history was asked: which sends, and how to
// print them.
type historyOptions struct {
	f         *Factory
	IO        *IOStreams
	JSON, CSV bool
	All       bool // --all-profiles
	Limit     int
	Since     string
	Status    string
}

func newCmdHistory(f *Factory, runF func(context.Context, *historyOptions) error) *cobra.Command {
	o := &historyOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = historyRun
	}
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List paired sends, newest first",
		Long: `Lists the paired sends recorded in the ledger, newest
first after the scheduled ones that wait for their time (soonest first, with
the time and a countdown): id, time, profile, sender, counts per status and
whether the send is complete, was interrupted, or is scheduled, cancelled or
missed. BY names who made (or scheduled) a send on a served console, and the
runner that started a scheduled one ("sara via cron"). ` + "`history cancel ID`" + `
cancels a scheduled send before its time. Only the sends of the active profile (or
--profile's) against its base URL are listed; --all-profiles lists every send
in the ledger. ` + "`history show ID`" + ` lists every recipient.`,
		Example: "  smsdesk history\n  smsdesk history --since 7d --status interrupted --limit 20\n  smsdesk --profile live history --json\n  smsdesk history --all-profiles\n  smsdesk history show 20260102-150405-3fa9c1 --refresh",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.JSON && o.CSV {
				return usageError("--json and --csv: choose one")
			}
			return runF(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print as JSON", historyFields, "smsdesk history --json=id,status,counts")
	fl := cmd.Flags()
	fl.BoolVar(&o.CSV, "csv", false, "print as CSV (for a spreadsheet: cells that would run as formulas are neutralised)")
	fl.BoolVar(&o.All, "all-profiles", false, "list the sends of every profile and base URL")
	fl.IntVar(&o.Limit, "limit", 0, "list at most N sends (the newest)")
	fl.StringVar(&o.Since, "since", "", "only sends made since then: a duration (24h, 7d) or a date (2026-11-01)")
	fl.StringVar(&o.Status, "status", "", "only sends with this status: "+strings.Join(historyStatuses, ", "))
	cmd.AddCommand(newCmdHistoryShow(f, nil), newCmdHistoryCancel(f, nil), newCmdHistoryReport(f, nil))
	return cmd
}

// historyRun lists a page of the sends (app.Session.HistoryPage), with a
// note of what it leaves out.
func historyRun(ctx context.Context, o *historyOptions) error {
	s, err := o.f.local()
	if err != nil {
		return err
	}
	q, err := historyQuery(o.All, o.Since, o.Status, o.Limit, o.f.now())
	if err != nil {
		return err
	}
	list, err := s.App.HistoryPage(ctx, q)
	if err != nil {
		return err
	}
	zone := s.App.Profile.Zone()
	out := make([]historyJSON, 0, len(list))
	ids := make([]string, 0, len(list))
	for _, l := range list {
		out = append(out, entryJSON(l, zone))
		ids = append(ids, l.ID)
	}
	delivery, err := s.App.DeliveryCounts(ctx, ids)
	if err != nil {
		return err
	}
	for i := range out {
		out[i].setDelivery(delivery[out[i].ID])
	}
	if o.JSON {
		return printJSON(o.IO.Out, out)
	}
	header, rows := historyRows(out, zone, o.f.now(), o.CSV)
	if o.CSV {
		return writeCSV(o.IO.Out, header, rows)
	}
	onFile := &sendsOnFile{ctx: ctx, s: s, all: o.All, n: -1}
	if hidden := o.hidden(onFile, len(list)); hidden > 0 {
		// A send made through another base URL (a proxy, SMSDESK_BASE_URL)
		// or profile is not listed: say so, or it looks lost.
		printf(o.IO.ErrOut, "(%d more send(s) of other profiles or base URLs: smsdesk history --all-profiles)\n", hidden)
	}
	if len(out) == 0 {
		// On stderr: stdout stays the table a script reads.
		printf(o.IO.ErrOut, "%s\n", noSendsText(s.ProfileName, o.All, onFile.count(), o.Since, o.Status))
		return nil
	}
	return o.IO.table(o.IO.Out, header, rows, historyFit...)
}

// sendsOnFile counts the profile's sends (before --since and --status)
// from the ledger's index, once, and only where it is said: a full page
// (--limit) is not held up counting the past.
type sendsOnFile struct {
	ctx context.Context
	s   *session
	all bool
	n   int // -1 until counted
}

func (c *sendsOnFile) count() int {
	if c.n < 0 {
		n, err := c.s.App.HistoryCount(c.ctx, c.all)
		if err != nil {
			n = 0 // a note's figure: a count that does not read says none
		}
		c.n = n
	}
	return c.n
}

// hidden is how many sends of other profiles or base URLs the table
// leaves out, for a note: counted only when the page is not full.
func (o *historyOptions) hidden(onFile *sendsOnFile, listed int) int {
	if o.All || o.Limit > 0 && listed >= o.Limit {
		return 0
	}
	every, err := onFile.s.App.HistoryCount(onFile.ctx, true)
	if err != nil {
		return 0
	}
	return every - onFile.count()
}

// historyFit is how the history table fits a terminal, in this order,
// until it does (as gh gives way): the delivery column (history show has
// it whole), the time without seconds and zone, then
// the sender, the profile, the opted-out, failed, rejected, unknown and not-sent
// counts (the status says "interrupted", "stopped" or "· 12 unknown"), the
// time, the total. ID, ACCEPTED and STATUS stay; a status still too long is
// cut. At 120 columns a send reads "ID  TIME  TOTAL  ACCEPTED … STATUS"; at 80
// "ID  TIME  TOTAL  ACCEPTED  STATUS". history show and --json have it all.
var historyFit = []fitStep{
	{column: "DELIVERY"},
	{column: "TIME", narrow: func(s string) string {
		if len(s) > len("2006-01-02 15:04") {
			return s[:len("2006-01-02 15:04")]
		}
		return s
	}},
	{column: "SENDER"}, {column: "PROFILE"}, {column: "OPTED OUT"}, {column: "FAILED"}, {column: "REJECTED"},
	{column: "UNKNOWN"}, {column: "NOT SENT"}, {column: "TIME"}, {column: "TOTAL"},
}

// fmtTime is a send's time for people, in the profile's timezone (loc),
// with the zone: send ids are UTC.
func fmtTime(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "-"
	}
	return t.In(loc).Format("2006-01-02 15:04:05 MST")
}

// noSendsText says why history lists nothing: no sends yet, or none of the
// onFile sends matches the filter (it names the filter and the count, so
// that 320 sends on file do not read as none).
func noSendsText(profile string, all bool, onFile int, since, status string) string {
	whose := "for profile " + profile
	if all {
		whose = "in the ledger"
	}
	if onFile == 0 {
		return fmt.Sprintf("No sends yet %s.", whose)
	}
	var filter []string
	if status != "" {
		filter = append(filter, "--status "+status)
	}
	if since != "" {
		filter = append(filter, "--since "+since)
	}
	list := "smsdesk history"
	if all {
		list += " --all-profiles"
	}
	return fmt.Sprintf("No sends match %s (%d send(s) %s: %s lists them all).", strings.Join(filter, " "), onFile, whose, list)
}

// historyStatuses are the statuses --status filters by.
var historyStatuses = []string{"complete", "unresolved", "interrupted", "stopped", "held", "running", "scheduled", "cancelled", "missed", "unreadable"}

// historyQuery is what history lists: the sends made since (a duration
// back from now, or a date), with the status asked, at most limit of them.
func historyQuery(all bool, since, status string, limit int, now time.Time) (app.HistoryQuery, error) {
	if limit < 0 {
		return app.HistoryQuery{}, usageError("--limit %d: give a positive number (0 lists every send)", limit)
	}
	from, err := parseSince(since, now)
	if err != nil {
		return app.HistoryQuery{}, err
	}
	if status != "" && !slices.Contains(historyStatuses, status) {
		return app.HistoryQuery{}, usageError("--status %q: one of %s", status, strings.Join(historyStatuses, ", "))
	}
	return app.HistoryQuery{All: all, Since: from, Status: status, Limit: limit}, nil
}

// parseSince reads --since: a duration back from now (90m, 24h, 7d) or a
// date (2026-11-01, local midnight).
func parseSince(since string, now time.Time) (time.Time, error) {
	if since == "" {
		return time.Time{}, nil
	}
	if d, err := config.ParseWindow(since); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	if t, err := time.ParseInLocation("2006-01-02", since, time.Local); err == nil {
		return t, nil
	}
	return time.Time{}, usageError("--since %q: give a duration (90m, 24h, 7d) or a date (2026-11-01)", since)
}

// lineText is a row's line in its file ("" in a journal written before
// lines were kept): the number the operator finds in the file, as --json
// and --csv give it.
func lineText(line int) string {
	if line <= 0 {
		return ""
	}
	return strconv.Itoa(line)
}

// withOperators adds a BY column (who sent it, on smsdesk serve) when any
// listed send was made on a served console; a machine where nobody serves
// keeps its table as it was.
func withOperators(out []historyJSON, header []string, rows [][]string) ([]string, [][]string) {
	if !slices.ContainsFunc(out, func(h historyJSON) bool { return h.Operator != nil || h.StartedBy != nil }) {
		return header, rows
	}
	for i, h := range out {
		rows[i] = append(rows[i], byText(h))
	}
	return append(header, "BY"), rows
}

// byText is the BY column of a history entry (app.ByText).
func byText(h historyJSON) string {
	var operator, runner string
	if h.Operator != nil {
		operator = h.Operator.Name
	}
	if h.StartedBy != nil {
		runner = *h.StartedBy
	}
	return app.ByText(operator, runner)
}

// csvBy is the BY column in a CSV: the table's, without its "-" for the
// machine's own terminal ("", "via serve"), which a spreadsheet would read
// as the start of a formula (and CSVRow would write as "'-").
func csvBy(h historyJSON) string {
	by := byText(h)
	if by == "-" {
		return ""
	}
	return strings.TrimPrefix(by, "- ")
}
