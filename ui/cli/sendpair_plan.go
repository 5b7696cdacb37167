package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// sendRequest gathers what send-pair's flags ask to send into one request
// for ui/app, which plans and checks it (app.Session.PrepareSend): pairs
// given one by one, a pairs file (read as it comes: a million rows are
// held once, as the plan), a file or a group's contacts through
// --template. The file is opened here; closeFile closes it once the request
// has been read.
func (o *sendPairOptions) sendRequest() (req app.SendRequest, closeFile func(), err error) {
	req = app.SendRequest{Sender: o.Sender, NoSuffix: o.NoSuffix, AtText: o.At, ChunkSize: o.ChunkSize, AllowRepeat: o.AllowRepeat,
		OnceID: o.Once, IgnoreQuietHours: o.IgnoreQuietHours, DryRun: o.DryRun, Group: o.Group}
	closeFile = func() {}
	if o.ResendFailed != "" {
		req.Resend = &app.ResendFailed{ID: o.ResendFailed, IncludeRejected: o.IncludeRejected}
		return req, closeFile, nil
	}
	if len(o.To) > 0 {
		req.Rows = app.ArgRows(o.To, o.Message)
		return req, closeFile, nil
	}
	if o.Template != "" {
		if req.Template, err = app.ParseTemplate(o.Template); err != nil {
			return req, closeFile, usageError("--%w", err)
		}
	}
	if o.File == "" {
		return req, closeFile, nil
	}
	rows := &app.FileRows{Name: filepath.Base(o.File), Pairs: model.PairsOptions{MessageColumn: o.MessageColumn, NoHeader: o.NoHeader, Columns: o.Columns}}
	req.File = rows
	if o.File == "-" {
		// The pairs come on stdin, so the question cannot be asked there.
		if !o.Yes && !o.DryRun {
			return req, closeFile, usageError("--file - reads the rows from stdin, where smsdesk would ask before sending: pass --yes (or --dry-run)")
		}
		rows.Name, rows.R = "stdin", model.WithSheet(o.IO.In, o.Sheet)
		return req, closeFile, nil
	}
	file, err := openInput("pairs file", o.File)
	if err != nil {
		return req, closeFile, err
	}
	// The file's lines, an upper bound on its rows: the plan is sized once.
	if rows.Lines, err = countLines(file); err != nil {
		_ = file.Close()
		return req, closeFile, usageError("reading %s: %w", o.File, err)
	}
	rows.R = model.WithSheet(file, o.Sheet)
	return req, func() { _ = file.Close() }, nil
}

// prepared is ui/app's answer to send-pair's request, as the command line
// words it: a pairs file's layout said (not with --json), and what could
// not be read or planned an error naming the flags that answer it.
func (o *sendPairOptions) prepared(s *session, p *app.PendingSend, err error) (*app.PendingSend, error) {
	var r *app.Refusal
	var rows *app.RowsError
	switch {
	case errors.As(err, &r) && r.Rule == app.RuleNoSender:
		return nil, usageError("no sender line: pass --sender LINE, or set one for profile %q (smsdesk config set sender LINE)", s.ProfileName)
	case errors.As(err, &r) && r.Rule == app.RuleGroupID:
		return nil, groupIDError(r.Name)
	case errors.As(err, &rows):
		return nil, rowsError(rows, o.MessageColumn != "")
	case err != nil:
		return nil, refused(err)
	}
	if p.Layout != nil && !o.JSON {
		printf(o.IO.ErrOut, "%s: %s\n", p.Source.Name, *p.Layout)
	}
	return p, nil
}

// rowsError words rows that do not read with the flags that read them
// otherwise (exit 2, nothing sent).
func rowsError(e *app.RowsError, messageColumn bool) error {
	switch {
	case errors.Is(e, model.ErrNoMessageColumn) && !messageColumn:
		return usageError("%w\n  → to write one message for every row, use --template, e.g. --template \"Hi {name|friend}\" (any column works: {city}, {code}); if a column holds each row's message, name it with --message-column COLUMN", e)
	case errors.Is(e, model.ErrLooksLikeContacts):
		return &ExitError{Code: ExitUsage, Kind: "input", Err: e,
			Hint: "if column 2 is each row's message, say so with --no-header (or name the columns: --columns mobile,message); to send every contact one message, use --template \"Hi {name|friend}\""}
	}
	return usageError("%w", e)
}

// countLines counts the newlines of a regular file and rewinds it (0 for
// anything else, which can be read only once). A plan grown a row at a
// time doubles its items and its duplicate index as it goes, holding old
// and new at each step: a 1M-row dry run took 640 MB so, 410 MB sized once.
func countLines(f *os.File) (int, error) {
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return 0, nil
	}
	n := 0
	buf := make([]byte, 256<<10)
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	_, err := f.Seek(0, io.SeekStart)
	return n + 1, err
}

// refuse prints why the pending send may not go and returns the exit-2
// error; nil when it may. With --json the problems are also one object on
// stdout, for a script to read row by row.
func (o *sendPairOptions) refuse(p *app.PendingSend) error {
	v := &p.Verdict
	if p.Refusal == nil {
		if len(v.Repeats) > 0 && p.AllowRepeat {
			for _, r := range p.RepeatTexts() {
				printf(o.IO.ErrOut, "repeat: %s\n", r)
			}
			fmt.Fprintf(o.IO.ErrOut, "--allow-repeat: %d pair(s) go again\n", v.RepeatedPairs())
		}
		return nil
	}
	if o.JSON {
		if err := o.printSendJSON(planJSON(p, o.DryRun), p.Refusal); err != nil {
			return err
		}
	}
	return refused(p.Refusal)
}

// printSendSummary writes what is about to go: who sends from where, the
// parts by encoding, cost and credit where known, the duration, and the
// first messages in full.
func printSendSummary(w io.Writer, s *session, p *app.PendingSend) {
	sum, source := p.Verdict.Summary, p.Source.Name
	kind := s.App.Profile.KeyKind
	if kind == "" {
		kind = "unknown kind of"
	}
	printf(w, "Profile %s on %s, %s key · sender %s · %s\n", s.ProfileName, hostOf(s.BaseURL), kind, sum.Sender, source)
	line := fmt.Sprintf("%s · %s", model.Counted(sum.Recipients, "recipient"), sum.PartsText())
	if c := sum.CostText(); c != "" {
		line += " · cost " + c
	}
	fmt.Fprintln(w, line)
	if c := p.Resent(); c != nil {
		printf(w, "%s\n", resentText(c))
	}
	if c := sum.CreditText(); c != "" {
		fmt.Fprintf(w, "Credit: %s\n", c)
	}
	fmt.Fprintf(w, "Time: %s\n", sum.DurationText())
	printRules(w, s.App, p)
	printSamples(w, sum)
}

// resentText says what a resend takes of the earlier send and what it
// leaves: "Resend of send ID: 3 failed (left out: 5 delivered, 1 rejected
// (not asked))".
func resentText(c *app.ResendCounts) string {
	taken := fmt.Sprintf("%d failed", c.Failed)
	if c.Rejected > 0 {
		taken += fmt.Sprintf(", %d rejected", c.Rejected)
	}
	return fmt.Sprintf("Resend of send %s: %s (left out: %s)", c.Of, taken, c.LeftText())
}

// printRules writes what the rules of whom and when say of a pending send:
// who is left out as opted out, the suffix, quiet hours ahead or ignored.
func printRules(w io.Writer, s *app.Session, p *app.PendingSend) {
	if len(p.OptedOut) > 0 {
		printf(w, "%s\n", model.OptedOutCount(p.Plan.OptedOutRecipients(), app.OptedOutShown))
	}
	if p.Line.Line != "" {
		for _, t := range p.Line.KindTexts() {
			printf(w, "Rules: %s\n", t)
		}
	}
	switch {
	case p.Plan.Suffix != "":
		printf(w, "Suffix: %s\n", app.SuffixText(p.Plan.Suffix))
	case p.Plan.NoSuffix:
		fmt.Fprintln(w, "--no-suffix: the messages go without the profile's opt-out suffix (recorded)")
	}
	if p.Quiet != nil {
		fmt.Fprintf(w, "Warning: %s (smsdesk send-pair --resume sends them then)\n", p.Quiet.Text(p.Facts.Now))
	}
	if q := p.QuietText(); p.IgnoreQuietHours && q != "" {
		printf(w, "--ignore-quiet-hours: sending through %s (recorded in the journal and the audit trail)\n", q)
	}
}

// printSamples writes the first messages exactly as they will be sent (each
// line of a message indented; w cleans what the plan let through).
func printSamples(w io.Writer, sum model.PlanSummary) {
	if len(sum.Samples) == 0 {
		return
	}
	if sum.Recipients == 1 {
		fmt.Fprintln(w, "The message, as it will be sent:")
	} else {
		fmt.Fprintf(w, "First %d of %s, as they will be sent:\n", len(sum.Samples), model.Counted(sum.Recipients, "message"))
	}
	for _, it := range sum.Samples {
		text := strings.ReplaceAll(it.Message, "\n", "\n      ") // several lines: w (env's) cleans them
		fmt.Fprintf(w, "  → %s (%d %s, %d part(s)):\n      %s\n", it.Recipient, it.Parts.Chars, it.Parts.Encoding, it.Parts.Parts, text)
	}
}
