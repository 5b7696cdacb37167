package cli

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/ui/app"
)

func (a *command) historyCommand() *cobra.Command {
	var asJSON, asCSV, all bool
	var limit int
	var since, status string
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
			if asJSON && asCSV {
				return usageError("--json and --csv: choose one")
			}
			s, err := a.local()
			if err != nil {
				return err
			}
			q, err := historyQuery(all, since, status, limit, a.now())
			if err != nil {
				return err
			}
			list, err := s.App.HistoryPage(cmd.Context(), q)
			if err != nil {
				return err
			}
			// Counted only where they are said, from the ledger's index:
			// a full page (--limit) is not held up counting the past.
			onFile := -1 // the profile's sends, before --since and --status
			count := func() int {
				if onFile < 0 {
					n, err := s.App.HistoryCount(cmd.Context(), all)
					if err != nil {
						n = 0
					}
					onFile = n
				}
				return onFile
			}
			hidden := 0 // sends of other profiles or base URLs, for a note
			if !all && !asJSON && !asCSV && (limit == 0 || len(list) < limit) {
				if every, err := s.App.HistoryCount(cmd.Context(), true); err == nil {
					hidden = every - count()
				}
			}
			out := make([]historyJSON, 0, len(list))
			for _, l := range list {
				out = append(out, entryJSON(l, s.App.Profile.Zone()))
			}
			if asJSON {
				return printJSON(a.IO.Out, out)
			}
			header, rows := historyRows(out, s.App.Profile.Zone(), a.now(), asCSV)
			if asCSV {
				return writeCSV(a.IO.Out, header, rows)
			}
			if hidden > 0 {
				// A send made through another base URL (a proxy, SMSDESK_BASE_URL)
				// or profile is not listed: say so, or it looks lost.
				printf(a.IO.ErrOut, "(%d more send(s) of other profiles or base URLs: smsdesk history --all-profiles)\n", hidden)
			}
			if len(out) == 0 {
				// On stderr: stdout stays the table a script reads.
				printf(a.IO.ErrOut, "%s\n", noSendsText(s.ProfileName, all, count(), since, status))
				return nil
			}
			return a.IO.table(a.IO.Out, header, rows, historyFit...)
		},
	}
	addJSONFlag(cmd, &asJSON, "print as JSON", historyFields, "smsdesk history --json=id,status,counts")
	cmd.Flags().BoolVar(&asCSV, "csv", false, "print as CSV (for a spreadsheet: cells that would run as formulas are neutralised)")
	cmd.Flags().BoolVar(&all, "all-profiles", false, "list the sends of every profile and base URL")
	cmd.Flags().IntVar(&limit, "limit", 0, "list at most N sends (the newest)")
	cmd.Flags().StringVar(&since, "since", "", "only sends made since then: a duration (24h, 7d) or a date (2026-11-01)")
	cmd.Flags().StringVar(&status, "status", "", "only sends with this status: "+strings.Join(historyStatuses, ", "))
	cmd.AddCommand(a.historyShowCommand(), a.historyCancelCommand())
	return cmd
}

// historyFit is how the history table fits a terminal, in this order,
// until it does (as gh gives way): the time without seconds and zone, then
// the sender, the profile, the opted-out, failed, rejected, unknown and not-sent
// counts (the status says "interrupted", "stopped" or "· 12 unknown"), the
// time, the total. ID, ACCEPTED and STATUS stay; a status still too long is
// cut. At 120 columns a send reads "ID  TIME  TOTAL  ACCEPTED … STATUS"; at 80
// "ID  TIME  TOTAL  ACCEPTED  STATUS". history show and --json have it all.
var historyFit = []fitStep{
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

// historyShowJSON is `history show --json`.
type historyShowJSON struct {
	historyJSON
	Results []sendResultJSON `json:"results"`
}

func (a *command) historyShowCommand() *cobra.Command {
	var asJSON, asCSV, refresh bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "List every recipient of a send with its status, message id and error",
		Long: `Lists every recipient of a send from its journal. --refresh first asks the
service for the delivery status of accepted messages (one pass, spending at most
a quarter of the rate budget) and records it.`,
		Example: "  smsdesk history show 20260102-150405-3fa9c1 --json",
		Args:    exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && asCSV {
				return usageError("--json and --csv: choose one")
			}
			id := args[0]
			s, err := a.local()
			if err != nil {
				return err
			}
			if refresh {
				if err := a.refreshDelivery(cmd, id); err != nil {
					return err
				}
			}
			e, err := s.App.ReadSend(cmd.Context(), id)
			if err != nil {
				return refused(err)
			}
			st, running := e.State, e.Running
			p := st.Plan
			h := entryJSON(e, s.App.Profile.Zone())
			if asJSON {
				out := historyShowJSON{historyJSON: h, Results: make([]sendResultJSON, len(st.Items))}
				for i, it := range st.Items {
					out.Results[i] = resultJSON(it)
				}
				return printJSON(a.IO.Out, out)
			}
			if asCSV {
				rows := make([][]string, len(st.Items))
				for i, it := range st.Items {
					rows[i] = []string{strconv.Itoa(it.Index), strconv.Itoa(it.Line), it.Recipient, it.Message, statusText(it.State), it.MessageID, it.Delivery, it.Code, it.Error}
				}
				return writeCSV(a.IO.Out, []string{"index", "line", "recipient", "message", "status", "message_id", "delivery", "code", "error"}, rows)
			}
			w := a.IO.Out
			printf(w, "Send %s  %s  profile %s  sender %s  %s  (%s)\n", p.ID, fmtTime(p.Time, s.App.Profile.Zone()), p.Profile, p.Sender, p.Source, humanStatus(h, a.now()))
			a.printSchedule(w, s, st)
			rows := make([][]string, len(st.Items))
			for i, it := range st.Items {
				rows[i] = []string{lineText(it.Line), it.Recipient, statusText(it.State), it.MessageID, it.Delivery, it.Error}
			}
			if err := a.IO.table(w, []string{"LINE", "RECIPIENT", "STATUS", "MESSAGE ID", "DELIVERY", "ERROR"}, rows); err != nil {
				return err
			}
			printSummary(w, p.ID, h.Counts, h.Status == "interrupted", h.Status == "stopped")
			if d := app.DamageText(st); d != "" {
				fmt.Fprintf(w, "Warning: %s\n", d)
			}
			if st.Stopped != "" {
				printf(w, "Stopped: %s\n", stopText(app.Summary{Stopped: st.Stopped, Cause: app.StopCause(st.StopCause)}))
			}
			if hold := app.HoldText(st, s.App.Profile.Zone()); hold != "" && st.Stopped == "" { // held now: said by Stopped
				printf(w, "Held: %s\n", strings.TrimPrefix(hold, "held "))
			}
			if st.Waiting() || st.Cancelled() {
				return nil // a runner starts it at its time; a cancelled send is not resumed
			}
			if hint := resumeHint(p.ID, h.Counts, st.Interrupted || st.Cancel != nil); hint != "" && !running {
				fmt.Fprintf(w, "To continue: %s\n", hint)
			}
			return nil
		},
	}
	addJSONFlag(cmd, &asJSON, "print as JSON", historyShowFields, "smsdesk history show 20260102-150405-3fa9c1 --json=counts,results")
	cmd.Flags().BoolVar(&asCSV, "csv", false, "print every recipient as CSV (cells that would run as formulas are neutralised)")
	cmd.Flags().BoolVar(&refresh, "refresh", false, "poll the delivery status of accepted messages first")
	return cmd
}

// refreshDelivery polls delivery states for a send and records them.
func (a *command) refreshDelivery(cmd *cobra.Command, id string) error {
	s, err := a.session(cmd.Context())
	if err != nil {
		return err
	}
	n, err := s.App.RefreshDelivery(cmd.Context(), id)
	switch {
	case errors.Is(err, app.ErrNoDelivery):
		fmt.Fprintln(a.IO.ErrOut, "The service does not report delivery status (404 or 405); not asking again.")
	case err != nil:
		return refused(err)
	default:
		fmt.Fprintf(a.IO.ErrOut, "%d delivery state(s) updated.\n", n)
	}
	return nil
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
