package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// plan reads the rows to send and plans them from sender, and names their
// source for messages: a pairs file, a file rendered through --template, or
// a group's contacts rendered through --template. A pairs file's rows go
// into the plan as they are read: a million of them are held once.
func (a *command) plan(ctx context.Context, s *session, f sendPairFlags, sender string) (*model.SendPlan, app.Source, error) {
	if len(f.to) > 0 {
		return s.App.PlanWith(sender, app.ArgRows(f.to, f.message), f.noSuffix), app.ArgsSource(), nil
	}
	var tmpl *model.Template
	if f.template != "" {
		t, err := app.ParseTemplate(f.template)
		if err != nil {
			return nil, app.Source{}, usageError("--%w", err)
		}
		tmpl = t
	}
	if f.file == "" {
		groupID, err := groupIDArg(s.Paths, s.ProfileName, f.group)
		if err != nil {
			return nil, app.Source{}, err
		}
		rows, src, err := s.App.GroupRows(ctx, groupID, tmpl)
		if err != nil {
			return nil, src, a.refused(err)
		}
		return s.App.PlanWith(sender, rows, f.noSuffix), src, nil
	}
	src := app.FileSource(filepath.Base(f.file))
	var fh io.Reader
	lines := 0 // the file's lines, an upper bound on its rows: the plan is sized once
	if f.file == "-" {
		// The pairs come on stdin, so the question cannot be asked there.
		if !f.yes && !f.dryRun {
			return nil, src, usageError("--file - reads the rows from stdin, where smsdesk would ask before sending: pass --yes (or --dry-run)")
		}
		src, fh = app.FileSource("stdin"), a.env.Stdin
	} else {
		file, err := openInput("pairs file", f.file)
		if err != nil {
			return nil, src, err
		}
		defer file.Close()
		fh = file
		if lines, err = countLines(file); err != nil {
			return nil, src, usageError("reading %s: %w", f.file, err)
		}
	}
	if tmpl != nil {
		var crs []model.ContactRow
		err := model.ReadContacts(fh, func(r model.ContactRow) error { crs = append(crs, r); return nil })
		if err != nil {
			return nil, src, usageError("%w; nothing was sent", model.NameCSVError(err, src.Name))
		}
		rows, err := app.TemplateRows(tmpl, crs, src)
		if err != nil {
			return nil, src, a.refused(err)
		}
		return s.App.PlanWith(sender, rows, f.noSuffix), src, nil
	}
	pb := s.App.NewPlan(sender, f.noSuffix, lines)
	lay, err := model.ReadPairsWith(fh, model.PairsOptions{MessageColumn: f.messageColumn, NoHeader: f.noHeader, Columns: f.columns},
		func(r model.PairRow) error { pb.Add(r); return nil })
	switch {
	case errors.Is(err, model.ErrNoMessageColumn) && f.messageColumn == "":
		return nil, src, usageError("%w; nothing was sent\n  → to write one message for every row, use --template, e.g. --template \"Hi {name|friend}\" (any column works: {city}, {code}); if a column holds each row's message, name it with --message-column COLUMN",
			model.NameCSVError(err, src.Name))
	case errors.Is(err, model.ErrLooksLikeContacts):
		return nil, src, &ExitError{Code: ExitUsage, Kind: "input", Err: fmt.Errorf("%w; nothing was sent", model.NameCSVError(err, src.Name)),
			Hint: "if column 2 is each row's message, say so with --no-header (or name the columns: --columns mobile,message); to send every contact one message, use --template \"Hi {name|friend}\""}
	case err != nil:
		return nil, src, usageError("%w; nothing was sent", model.NameCSVError(err, src.Name))
	}
	if !f.asJSON {
		printf(a.env.Stderr, "%s: %s\n", src.Name, lay)
	}
	return pb.Plan(), src, nil
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
func (a *command) refuse(p *app.PendingSend, dryRun, asJSON bool) error {
	v := &p.Verdict
	if p.Refusal == nil {
		if len(v.Repeats) > 0 && p.AllowRepeat {
			for _, r := range p.RepeatTexts() {
				printf(a.env.Stderr, "repeat: %s\n", r)
			}
			fmt.Fprintf(a.env.Stderr, "--allow-repeat: %d pair(s) go again\n", v.RepeatedPairs())
		}
		return nil
	}
	if asJSON {
		if err := a.printSendJSON(planJSON(p, dryRun), p.Refusal); err != nil {
			return err
		}
	}
	return a.refused(p.Refusal)
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
	if c := sum.CreditText(); c != "" {
		fmt.Fprintf(w, "Credit: %s\n", c)
	}
	fmt.Fprintf(w, "Time: %s\n", sum.DurationText())
	printRules(w, s.App, p)
	printSamples(w, sum)
}

// printRules writes what the rules of whom and when say of a pending send:
// who is left out as opted out, the suffix, quiet hours ahead or ignored.
func printRules(w io.Writer, s *app.Session, p *app.PendingSend) {
	if len(p.OptedOut) > 0 {
		printf(w, "%s\n", model.OptedOutCount(p.Plan.OptedOutRecipients(), app.OptedOutShown))
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
	if p.IgnoreQuietHours && s.Profile.Quiet.On {
		printf(w, "--ignore-quiet-hours: sending through %s (recorded in the journal and the audit trail)\n", model.QuietText(s.Profile.Quiet, s.Profile.Zone()))
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
