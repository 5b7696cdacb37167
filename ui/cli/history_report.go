package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// historyReportOptions are what history report was asked.
type historyReportOptions struct {
	f         *Factory
	IO        *IOStreams
	ID        string
	JSON, CSV bool
	XLSX      string // the workbook to write ("": none)
	Force     bool   // replace XLSX if it is there
}

// reportFields are history report --json's.
var reportFields = []string{"id", "sender", "time", "delivery", "rows"}

func newCmdHistoryReport(f *Factory, runF func(context.Context, *historyReportOptions) error) *cobra.Command {
	o := &historyReportOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = historyReportRun
	}
	cmd := &cobra.Command{
		Use:   "report ID",
		Short: "A send's delivery report: counts by state, and one row per recipient",
		Long: `Prints a send's delivery report: its accepted messages counted by delivery
state (delivered, failed, rejected, pending, sent, no report) with each state's
share, SMS parts and cost at the profile's prices, then one row per recipient:
line, recipient, name (where this machine has listed the group's contacts),
message, parts, status, delivery, when (the time its delivery state arrived)
and reply (the first message the recipient wrote back to the line after the
send). Delivery states come from the service's webhooks and a runner's polls
(smsdesk serve, smsdesk scheduler). --csv and --json print it for a script;
--xlsx FILE writes a workbook (0600; right to left when the messages are
Persian), and refuses a file that is there unless --force.`,
		Example: "  smsdesk history report 20260102-150405-3fa9c1\n  smsdesk history report 20260102-150405-3fa9c1 --xlsx report.xlsx\n  smsdesk history report 20260102-150405-3fa9c1 --csv > report.csv",
		Args:    exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if err := o.validate(); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print as JSON", reportFields, "smsdesk history report 20260102-150405-3fa9c1 --json=delivery")
	fl := cmd.Flags()
	fl.BoolVar(&o.CSV, "csv", false, "print one row per recipient as CSV (cells that would run as formulas are neutralised)")
	fl.StringVar(&o.XLSX, "xlsx", "", "write the report to `FILE` as an Excel workbook")
	fl.BoolVar(&o.Force, "force", false, "with --xlsx: replace FILE if it is there")
	return cmd
}

// validate checks what the flags cannot say alone: one output, and
// --force only with a file.
func (o *historyReportOptions) validate() error {
	n := 0
	for _, on := range []bool{o.JSON, o.CSV, o.XLSX != ""} {
		if on {
			n++
		}
	}
	switch {
	case n > 1:
		return usageError("--json, --csv and --xlsx: choose one")
	case o.Force && o.XLSX == "":
		return usageError("--force replaces the --xlsx file: give --xlsx FILE")
	}
	return nil
}

// reportJSON is history report --json.
type reportJSON struct {
	ID       string               `json:"id"`
	Sender   string               `json:"sender"`
	Time     time.Time            `json:"time"`
	Delivery model.DeliveryReport `json:"delivery"`
	Rows     []reportRowJSON      `json:"rows"`
}

// reportRowJSON is one recipient of the report.
type reportRowJSON struct {
	Line      string     `json:"line"`
	Recipient string     `json:"recipient"`
	Name      string     `json:"name"`
	Message   string     `json:"message"`
	Parts     int        `json:"parts"`
	Status    string     `json:"status"`
	Delivery  *string    `json:"delivery"` // null when the service did not accept it
	When      *time.Time `json:"when"`
	Reply     string     `json:"reply"`
}

// reportHeader is the report's columns, in CSV and the workbook.
var reportHeader = []string{"line", "recipient", "name", "message", "parts", "status", "delivery", "when", "reply"}

// historyReportRun prints or writes a send's delivery report.
func historyReportRun(ctx context.Context, o *historyReportOptions) error {
	s, err := o.f.local()
	if err != nil {
		return err
	}
	// A report of 100,000 recipients holds its send replayed: the heap
	// grows by half its live size before a collection, not by all of it
	// (peak RSS 306 MB → 271 MB, BENCHMARKS.md).
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	rep, err := s.App.DeliveryReport(ctx, o.ID)
	if err != nil {
		return refused(err)
	}
	zone := s.App.Profile.Zone()
	switch {
	case o.CSV:
		return writeReportCSV(ctx, o.IO.Out, rep, zone)
	case o.XLSX != "":
		return o.writeXLSX(ctx, rep, zone)
	}
	rows, err := rep.Rows(ctx) // laid out together: JSON, a table's widths
	if err != nil {
		return err
	}
	if o.JSON {
		return printJSON(o.IO.Out, reportOf(rep, rows, zone))
	}
	return o.print(rep, rows, zone)
}

// reportOf is the report as JSON, every time in the profile's zone.
func reportOf(rep *app.SendReport, rows []app.ReportRow, zone *time.Location) reportJSON {
	p := rep.Entry.State.Plan
	out := reportJSON{ID: p.ID, Sender: p.Sender, Time: p.Time.In(zone), Delivery: rep.Delivery, Rows: make([]reportRowJSON, len(rows))}
	for i, r := range rows {
		row := reportRowJSON{Line: r.Line, Recipient: r.Recipient, Name: r.Name, Message: r.Message, Parts: r.Parts,
			Status: statusText(r.Status), Reply: r.Reply}
		if r.Delivery != "" {
			row.Delivery = nullable(string(r.Delivery))
		}
		if !r.When.IsZero() {
			when := r.When.In(zone)
			row.When = &when
		}
		out.Rows[i] = row
	}
	return out
}

// writeReportCSV writes the report's rows as CSV as they are made (a
// report of 100,000 recipients is never held), every cell neutralised.
func writeReportCSV(ctx context.Context, w io.Writer, rep *app.SendReport, zone *time.Location) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(reportHeader)
	if err := rep.EachRow(ctx, func(r app.ReportRow) error { return cw.Write(model.CSVRow(reportRowCells(r, zone))) }); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

func reportRowCells(r app.ReportRow, zone *time.Location) []string {
	when := ""
	if !r.When.IsZero() {
		when = r.When.In(zone).Format("2006-01-02 15:04:05")
	}
	return []string{r.Line, r.Recipient, r.Name, r.Message, strconv.Itoa(r.Parts), statusText(r.Status), string(r.Delivery), when, r.Reply}
}

// print writes the report for people: the send, the counts by state, and
// a table of recipients.
func (o *historyReportOptions) print(rep *app.SendReport, rows []app.ReportRow, zone *time.Location) error {
	w, p, d := o.IO.Out, rep.Entry.State.Plan, rep.Delivery
	printf(w, "Send %s  %s  sender %s  %s\n", p.ID, fmtTime(p.Time, zone), p.Sender, p.Source)
	if d.Messages == 0 {
		printf(w, "No message of it was accepted: there is no delivery to report.\n")
	} else {
		rows := make([][]string, 0, len(d.States)+1)
		for _, st := range d.States {
			rows = append(rows, []string{st.State.Words(), strconv.Itoa(st.Count), percent(st.Count, d.Messages), strconv.Itoa(st.Parts), costText(st.Cost)})
		}
		rows = append(rows, []string{"all", strconv.Itoa(d.Messages), "100%", strconv.Itoa(d.Parts), costText(d.Cost)})
		if err := o.IO.table(w, []string{"DELIVERY", "MESSAGES", "SHARE", "PARTS", "COST"}, rows); err != nil {
			return err
		}
	}
	printf(w, "\n")
	header := []string{"LINE", "RECIPIENT", "NAME", "MESSAGE", "PARTS", "STATUS", "DELIVERY", "WHEN", "REPLY"}
	return o.IO.tableOf(w, header, len(rows), func(i int) []string { return reportRowCells(rows[i], zone) })
}

// costText is a cost in rial, "-" when a price it needs is not set.
func costText(c *int64) string {
	if c == nil {
		return "-"
	}
	return fmt.Sprintf("%s rial", model.Thousands(*c))
}
