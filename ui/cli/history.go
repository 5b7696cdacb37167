package cli

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// historyJSON is one send in `history --json`.
type historyJSON struct {
	ID       string            `json:"id"`
	Time     time.Time         `json:"time"`
	Profile  string            `json:"profile"`
	Sender   string            `json:"sender"`
	Source   string            `json:"source"`
	Status   string            `json:"status"` // complete, unresolved, interrupted, stopped, held, running, scheduled, cancelled, missed, unreadable
	Complete bool              `json:"complete"`
	Counts   model.StateCounts `json:"counts"`
	Error    *string           `json:"error"` // why the journal cannot be read
	// Stopped is the service's refusal that stopped the send, StopCause its
	// kind (credit, key, sender, account).
	Stopped   *string `json:"stopped"`
	StopCause *string `json:"stop_cause"`
	// DamagedLines are the journal's unreadable lines: the recipients they
	// may concern are unknown, never "not sent".
	DamagedLines []int `json:"damaged_lines"` // [] for a sound journal
	// Operator made the send on a served console (smsdesk serve): name and
	// key fingerprint; null for a send made at a local terminal. For a
	// scheduled send, who scheduled it.
	Operator *model.Operator `json:"operator"`
	// ScheduledFor is a scheduled send's time (null for a send started at
	// once); StartedBy the runner that started it (serve, scheduler, cron),
	// null before it starts or for a send an operator started; StartedAt
	// when it did (a late runner starts it after scheduled_for).
	ScheduledFor *time.Time `json:"scheduled_for"`
	StartedBy    *string    `json:"started_by"`
	StartedAt    *time.Time `json:"started_at"`
	// HeldUntil is when a send held at quiet hours may go on, kept after
	// it went on (null when quiet hours never held it); ContinuedBy is who
	// went on with it after the hold (null while held, or never held).
	HeldUntil   *time.Time     `json:"held_until"`
	ContinuedBy *continuedJSON `json:"continued_by"`
}

// continuedJSON is who went on with a send held at quiet hours, and when:
// a runner (serve, scheduler, cron), or an operator's resume (operator
// null at a local terminal).
type continuedJSON struct {
	At       time.Time       `json:"at"`
	Runner   *string         `json:"runner"`
	Operator *model.Operator `json:"operator"`
}

// humanStatus is the status for people: "complete · 12 unknown" when a send
// ended with recipients nobody can account for; "scheduled · in 9h 40m" for
// a send that waits for its time.
func humanStatus(h historyJSON, now time.Time) string {
	switch {
	case h.Counts.Unknown > 0 && (h.Status == "complete" || h.Status == "unresolved"):
		return fmt.Sprintf("%s · %d unknown", h.Status, h.Counts.Unknown)
	case h.Status == "scheduled" && h.ScheduledFor != nil:
		return "scheduled · " + model.DueText(*h.ScheduledFor, now)
	case h.StartedAt != nil: // TIME is the planned time; this, when it went
		return h.Status + " · started " + startedText(*h.StartedAt, *h.ScheduledFor)
	}
	return h.Status
}

// startedText is when a scheduled send started, beside its planned time:
// "18:00" the same day, "2026-03-21 08:00" another.
func startedText(started, planned time.Time) string {
	if started.Format("2006-01-02") == planned.In(started.Location()).Format("2006-01-02") {
		return started.Format("15:04")
	}
	return started.Format("2006-01-02 15:04")
}

// historyRows are history's table (or, csv, its CSV): a scheduled send at
// its planned time; the table's status counts down to it and says when a
// started one started, the CSV's is the status alone (a file keeps no live
// countdown) with started_at its own column. The table has BY when any send
// names an operator or a runner; the CSV always has it.
func historyRows(out []historyJSON, zone *time.Location, now time.Time, csv bool) ([]string, [][]string) {
	header := []string{"ID", "TIME", "PROFILE", "SENDER", "TOTAL", "ACCEPTED", "REJECTED", "FAILED", "UNKNOWN", "NOT SENT", "OPTED OUT", "STATUS"}
	if csv {
		header = append(header, "BY", "STARTED AT")
	}
	rows := make([][]string, len(out))
	for i, h := range out {
		c := h.Counts
		when := h.Time
		if h.ScheduledFor != nil {
			when = *h.ScheduledFor // the time it is (or was) to go
		}
		status := humanStatus(h, now)
		if csv {
			status = h.Status
		}
		rows[i] = []string{h.ID, fmtTime(when, zone), h.Profile, h.Sender, strconv.Itoa(c.Total), strconv.Itoa(c.Accepted),
			strconv.Itoa(c.Rejected), strconv.Itoa(c.Failed), strconv.Itoa(c.Unknown), strconv.Itoa(c.NotSent), strconv.Itoa(c.OptedOut), status}
		if csv {
			started := ""
			if h.StartedAt != nil {
				started = fmtTime(*h.StartedAt, zone)
			}
			rows[i] = append(rows[i], csvBy(h), started)
		}
	}
	if csv {
		for i := range header {
			header[i] = strings.ToLower(strings.ReplaceAll(header[i], " ", "_"))
		}
		return header, rows
	}
	return withOperators(out, header, rows)
}

// entryJSON is one send as history --json lists it, every time in the
// profile's timezone (zone) with its offset (RFC 3339), as the opt-out
// list's and a scheduled send's are: the same instant, read the same way as
// the table.
func entryJSON(l app.HistoryEntry, zone *time.Location) historyJSON {
	h := historyJSON{ID: l.ID, Status: l.Status(), DamagedLines: []int{}}
	if l.Err != nil {
		h.Error = nullable(l.Err.Error())
		return h
	}
	st := l.State
	p := st.Plan
	h.Time, h.Profile, h.Sender, h.Source, h.Operator = p.Time.In(zone), p.Profile, p.Sender, p.Source, p.Operator
	h.Complete, h.Counts = st.Complete(), st.Counts()
	h.DamagedLines = append([]int{}, st.DamagedLines...)
	h.Stopped, h.StopCause = nullable(st.Stopped), nullable(st.StopCause)
	if st.Scheduled() {
		at := p.ScheduledFor.In(zone)
		h.ScheduledFor, h.StartedBy = &at, nullable(st.StartedBy)
		if !st.StartedAt.IsZero() {
			started := st.StartedAt.In(zone)
			h.StartedAt = &started
		}
	}
	if hold := st.Hold; hold != nil {
		until := hold.Until.In(zone)
		h.HeldUntil = &until
		if hold.Continued() {
			h.ContinuedBy = &continuedJSON{At: hold.ContinuedAt.In(zone), Runner: nullable(hold.Runner), Operator: hold.Operator}
		}
	}
	if c := st.Cancel; c != nil { // cancelled or missed: why, in stopped
		h.Stopped, h.StopCause = nullable(cancelText(c, zone)), nullable(c.Cause)
	}
	if st.Damaged > 0 {
		h.Status += fmt.Sprintf(" · %d damaged line(s)", st.Damaged)
	}
	return h
}

// cancelText says why a scheduled send never started: "cancelled by sara
// at 2026-11-25 10:12:00 +0330", or a missed send's reason.
func cancelText(c *model.JournalCancel, zone *time.Location) string {
	if c.Cause == model.CancelMissed {
		return "missed: " + c.Reason
	}
	by := ""
	if c.Operator != nil {
		by = " by " + c.Operator.Name
	}
	return fmt.Sprintf("cancelled%s at %s", by, fmtTime(c.Time, zone))
}

// writeCSV writes a header and rows as CSV, every cell neutralised.
func writeCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(header)
	for _, r := range rows {
		_ = cw.Write(model.CSVRow(r))
	}
	cw.Flush()
	return cw.Error()
}

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
			list, err := s.App.HistoryPage(q)
			if err != nil {
				return err
			}
			// Counted only where they are said, from the ledger's index:
			// a full page (--limit) is not held up counting the past.
			onFile := -1 // the profile's sends, before --since and --status
			count := func() int {
				if onFile < 0 {
					n, err := s.App.HistoryCount(all)
					if err != nil {
						n = 0
					}
					onFile = n
				}
				return onFile
			}
			hidden := 0 // sends of other profiles or base URLs, for a note
			if !all && !asJSON && !asCSV && (limit == 0 || len(list) < limit) {
				if every, err := s.App.HistoryCount(true); err == nil {
					hidden = every - count()
				}
			}
			out := make([]historyJSON, 0, len(list))
			for _, l := range list {
				out = append(out, entryJSON(l, s.App.Profile.Zone()))
			}
			if asJSON {
				return printJSON(a.env.Stdout, out)
			}
			header, rows := historyRows(out, s.App.Profile.Zone(), a.now(), asCSV)
			if asCSV {
				return writeCSV(a.env.Stdout, header, rows)
			}
			if hidden > 0 {
				// A send made through another base URL (a proxy, SMSDESK_BASE_URL)
				// or profile is not listed: say so, or it looks lost.
				printf(a.env.Stderr, "(%d more send(s) of other profiles or base URLs: smsdesk history --all-profiles)\n", hidden)
			}
			if len(out) == 0 {
				// On stderr: stdout stays the table a script reads.
				printf(a.env.Stderr, "%s\n", noSendsText(s.ProfileName, all, count(), since, status))
				return nil
			}
			return a.table(a.env.Stdout, header, rows, historyFit...)
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
			e, err := s.App.ReadSend(id)
			if err != nil {
				return a.refused(err)
			}
			st, running := e.State, e.Running
			p := st.Plan
			h := entryJSON(e, s.App.Profile.Zone())
			if asJSON {
				out := historyShowJSON{historyJSON: h, Results: make([]sendResultJSON, len(st.Items))}
				for i, it := range st.Items {
					out.Results[i] = resultJSON(it)
				}
				return printJSON(a.env.Stdout, out)
			}
			if asCSV {
				rows := make([][]string, len(st.Items))
				for i, it := range st.Items {
					rows[i] = []string{strconv.Itoa(it.Index), strconv.Itoa(it.Line), it.Recipient, it.Message, statusText(it.State), it.MessageID, it.Delivery, it.Code, it.Error}
				}
				return writeCSV(a.env.Stdout, []string{"index", "line", "recipient", "message", "status", "message_id", "delivery", "code", "error"}, rows)
			}
			w := a.env.Stdout
			printf(w, "Send %s  %s  profile %s  sender %s  %s  (%s)\n", p.ID, fmtTime(p.Time, s.App.Profile.Zone()), p.Profile, p.Sender, p.Source, humanStatus(h, a.now()))
			a.printSchedule(w, s, st)
			rows := make([][]string, len(st.Items))
			for i, it := range st.Items {
				rows[i] = []string{lineText(it.Line), it.Recipient, statusText(it.State), it.MessageID, it.Delivery, it.Error}
			}
			if err := a.table(w, []string{"LINE", "RECIPIENT", "STATUS", "MESSAGE ID", "DELIVERY", "ERROR"}, rows); err != nil {
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
		fmt.Fprintln(a.env.Stderr, "The service does not report delivery status (404 or 405); not asking again.")
	case err != nil:
		return a.refused(err)
	default:
		fmt.Fprintf(a.env.Stderr, "%d delivery state(s) updated.\n", n)
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
