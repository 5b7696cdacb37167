package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// sendPairFlags are send-pair's flags.
type sendPairFlags struct {
	sender, file, group, template string
	messageColumn                 string
	noHeader                      bool     // the pairs file has no header: recipient, message
	columns                       []string // names for a pairs file's columns (it has no header)
	to, message                   []string // --to and --message, paired in order
	dryRun, yes, asJSON           bool
	allowRepeat                   bool
	chunkSize                     int
	resume                        string
	once                          string // --once ID: at most one send with this id on the account
	includeUnknown                bool
	noSuffix, ignoreQuietHours    bool
	at                            string // --at: schedule the send for then
}

func (a *command) sendPairCommand() *cobra.Command {
	var f sendPairFlags
	cmd := &cobra.Command{
		Use:   "send-pair (--to NUMBER --message TEXT … | --file PAIRS.csv | --file CONTACTS.csv --template TEXT | --group ID --template TEXT) [--sender LINE]",
		Short: "Send each recipient its own message (a paired send)",
		Long: `Where the messages come from:
  --to NUMBER --message TEXT  one pair; repeat both for more (the first --message goes
                              to the first --to, and so on)
  --file PAIRS.csv            a recipient and a message per row; with a header, the
                              message column is message, text or body (or the one
                              --message-column names); a header without one (mobile,name)
                              is refused: that is a contacts file, use --template.
                              A file without a header whose second column reads like
                              names is refused too, unless --no-header says its columns
                              are recipient, message (or --columns names them)
  --file F --template TEXT    TEXT rendered over every row of F: {mobile}, {name} and
                              any other column ({code}, {city})
  --group ID --template TEXT  TEXT rendered over the group's contacts ({name}, {mobile})
A variable that is empty for a row stops the send naming the row, unless the
template gives a fallback: {name|friend}.

Checks the whole plan first and sends nothing (exit 2) when any row is invalid
(numbers outside Iran too, unless the profile sets allow_international = true),
the sender is not one of the profile's lines, the credit is short, or pairs
(recipient and exact text) were already accepted within the profile's
repeat_window (24h unless set; --allow-repeat sends them again). Then it shows
the plan with the first three messages, asks (or --yes), and sends in chunks,
paced to the rate limit, with progress on stderr. A refusal that will repeat
(401, 402 insufficient credit, 403 sender not allowed) stops the send after
that chunk; the rest continues with --resume once fixed.

--at TIME plans, checks and confirms the send now and schedules it: nothing is
sent until a runner (smsdesk serve, or smsdesk scheduler) starts it at TIME,
checked again then. TIME is 08:00 (the next 08:00 in the profile's timezone),
2026-11-26 08:00, an RFC 3339 time, a Jalali date and time (1405-09-05 08:00,
years 1300 to 1599), or +30m / +2h from now; not past, at most
35 days ahead, not inside quiet hours. smsdesk history lists it first;
smsdesk history cancel ID cancels it. Every step is
recorded in its journal in the ledger: ` + "`smsdesk history`" + ` lists sends.
Nothing whose outcome is unknown is sent again unless you say so
(--include-unknown).

Exit codes: 0 all accepted; 1 some rejected, failed or not sent; 2 usage or
input error (nothing sent); 3 the outcome of some recipients is unknown; 4 the
key is missing or refused; 130 stopped by ctrl+c, SIGTERM or a hang-up after
the chunk in flight (unknown outcomes still exit 3).`,
		Example: `  smsdesk send-pair --to 09121234567 --message "Your code is 4821"
  smsdesk send-pair --to 09121234567 --message "Hi Ali" --to 09351234567 --message "Hi Sara"
  smsdesk send-pair --file pairs.csv --dry-run
  smsdesk send-pair --sender 3000505 --file pairs.csv --yes --json
  smsdesk send-pair --file vars.csv --template "Hi {name|friend}, your code is {code}"
  smsdesk send-pair --group 12 --template "Hello {name|friend}"
  smsdesk send-pair --file pairs.csv --at 08:00
  smsdesk send-pair --resume 20260102-150405-3fa9c1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("at") && strings.TrimSpace(f.at) == "" {
				// A cron line's --at "$WHEN" with WHEN unset: read as no
				// --at, it would send now what was meant for later.
				return usageError("--at is empty (an unset variable in a cron line?): give a time, e.g. --at 08:00 or --at +30m, or leave --at out to send now; nothing was sent")
			}
			if f.resume != "" {
				return a.resumeSend(cmd, f)
			}
			return a.newSend(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.sender, "sender", "", "sender line (default: the profile's)")
	fl.StringVar(&f.file, "file", "", "CSV file: recipient,message per row (or any columns, with --template); - reads stdin (with --yes)")
	fl.StringVar(&f.group, "group", "", "send to a group's contacts (with --template)")
	fl.StringArrayVar(&f.to, "to", nil, "a recipient; repeat for more, each with its own --message")
	fl.StringArrayVar(&f.message, "message", nil, "the message for the --to in the same place")
	fl.StringVar(&f.template, "template", "", "message template over --file's rows or --group's contacts: {name}, {mobile}, any column; {name|friend} for a fallback")
	fl.StringVar(&f.messageColumn, "message-column", "", "the pairs file's message column, when it is not message, text or body")
	fl.BoolVar(&f.noHeader, "no-header", false, "the pairs file has no header row: its columns are recipient, message (even when the messages read like names)")
	fl.StringSliceVar(&f.columns, "columns", nil, "name the columns of a pairs file that has no header, in order: --columns mobile,message (or message,mobile; other columns any name)")
	fl.BoolVar(&f.allowRepeat, "allow-repeat", false, "send pairs already accepted (or maybe sent) within the profile's repeat_window again; with --resume, pairs other sends took")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the plan and send nothing")
	fl.BoolVarP(&f.yes, "yes", "y", false, "send without asking")
	addJSONFlag(cmd, &f.asJSON, "print results as JSON", sendPairFields, "smsdesk send-pair --file pairs.csv --yes --json=id,counts   # only the send's id and counts")
	fl.IntVar(&f.chunkSize, "chunk-size", 0, "items per request (default: the profile's, else 100)")
	fl.StringVar(&f.resume, "resume", "", "continue send ID: send only what certainly did not go")
	fl.StringVar(&f.once, "once", "", "make this send at most once on the account (any profile, any operator), e.g. --once \"reminders-$(date +%F)\": run again with the same pairs, it says which send it was and sends nothing")
	fl.BoolVar(&f.includeUnknown, "include-unknown", false, "with --resume: also send again items whose outcome is unknown")
	fl.BoolVar(&f.noSuffix, "no-suffix", false, "leave the profile's optout_suffix out of this send's messages (recorded in its journal)")
	fl.BoolVar(&f.ignoreQuietHours, "ignore-quiet-hours", false, "send inside, or on past the start of, the profile's quiet_hours (recorded in the journal and the audit trail)")
	fl.StringVar(&f.at, "at", "", "schedule the send for TIME instead of sending now: 08:00, \"2026-11-26 08:00\", RFC 3339, +30m; smsdesk serve or smsdesk scheduler start it then")
	return cmd
}

// newSend plans, checks, confirms and sends a new paired send.
func (a *command) newSend(cmd *cobra.Command, f sendPairFlags) error {
	switch {
	case f.includeUnknown:
		return usageError("--include-unknown goes with --resume ID")
	case f.noSuffix && f.resume != "":
		return usageError("--no-suffix goes with a new send: a resume sends the messages as they were planned")
	case (len(f.to) > 0 || len(f.message) > 0) && (f.file != "" || f.group != "" || f.template != "" || f.messageColumn != "" || f.noHeader || len(f.columns) > 0):
		return usageError("--to and --message give the pairs themselves: not with --file, --group, --template, --message-column, --no-header or --columns")
	case len(f.to) != len(f.message):
		return usageError("--to and --message pair up in order: %d --to but %d --message", len(f.to), len(f.message))
	case f.file != "" && f.group != "":
		return usageError("give either --file or --group, not both")
	case f.file == "" && f.group == "" && len(f.to) == 0:
		return usageError("nothing to send: give --to NUMBER --message TEXT, --file PAIRS.csv, --file CONTACTS.csv with --template TEXT, or --group ID with --template TEXT")
	case f.group != "" && f.template == "":
		return usageError("--group needs --template TEXT (use {name} and {mobile}; {name|friend} for a fallback)")
	case f.messageColumn != "" && (f.file == "" || f.template != ""):
		return usageError("--message-column names a pairs file's message column: it goes with --file, not with --template")
	case (f.noHeader || len(f.columns) > 0) && (f.file == "" || f.template != ""):
		return usageError("--no-header and --columns describe a pairs file's columns: they go with --file, not with --template (a contacts file without a header is read as mobile,name)")
	case f.noHeader && (len(f.columns) > 0 || f.messageColumn != ""):
		return usageError("--no-header reads the columns as recipient, message: not with --columns or --message-column (name the columns with --columns instead)")
	case f.chunkSize < 0 || f.chunkSize > config.MaxChunkSize:
		return usageError("--chunk-size %d: use 1 to %d", f.chunkSize, config.MaxChunkSize)
	case f.at != "" && f.file == "-":
		return usageError("--at keeps the rows to send them later: give a file, not stdin (--file -)")
	}
	if f.once != "" {
		if err := model.CheckOnceID(f.once); err != nil {
			return usageError("--once %q: %v; use letters, digits and punctuation, e.g. --once \"reminders-$(date +%%F)\"", model.SanitizeLine(f.once), err)
		}
		a.once = f.once
	}
	ctx := cmd.Context()
	s, err := a.local()
	if err != nil {
		return err
	}
	if f.group != "" || !f.dryRun || f.once != "" { // the network (or, for --once, the account) is needed
		if s, err = a.session(ctx); err != nil {
			return err
		}
	} else if s.BaseURL != "" {
		// A dry run asks the service nothing, but the opt-out list is the
		// account's: with a key at hand, the plan leaves out who is on it.
		if key, _, err := a.secrets(s.Paths).Get(s.ProfileName); err == nil {
			s.App.Account = model.AccountID(s.BaseURL, key)
		}
	}
	req, closeFile, err := a.sendRequest(f)
	if err != nil {
		return err
	}
	p, err := s.App.PrepareSend(ctx, req)
	closeFile()
	if p, err = a.prepared(s, p, err, f); err != nil {
		return err
	}
	if r := p.Refusal; r != nil && r.Rule == app.RuleOnce && r.Once.SamePairs {
		return a.alreadySent(ctx, s, r, f.asJSON) // the same send, run again: reported, nothing sent
	}
	if p.Note != "" {
		fmt.Fprintf(a.env.Stderr, "note: %s\n", p.Note)
	}
	if r := p.Refusal; r != nil && r.Rule == app.RuleQuietHours && f.dryRun && !f.asJSON {
		// A dry run inside quiet hours is the operator preparing the
		// morning's send: the plan is whole, only its time is refused, so it
		// is shown, then the refusal (exit 2, as the send would be).
		if err := a.printPlan(p, s.App, false); err != nil {
			return err
		}
	}
	if err := a.refuse(p, f.dryRun, f.asJSON); err != nil {
		return err
	}
	if f.dryRun {
		return a.printPlan(p, s.App, f.asJSON)
	}
	printSendSummary(a.env.Stderr, s, p)
	n, parts := p.Verdict.Summary.Recipients, p.Verdict.Summary.Parts
	if !p.At.IsZero() {
		return a.scheduleSend(ctx, s, p, f)
	}
	if !f.yes {
		q := fmt.Sprintf("Send %s (%s) from %s to %s?", model.Counted(n, "message"), model.Counted(parts, "SMS part"), p.Plan.Sender, model.Counted(n, "recipient"))
		ok, err := a.confirm(q, "--yes")
		if err != nil {
			return err
		}
		if !ok {
			return usageError("not sent: the answer was no")
		}
	}
	// Start looks again for a send begun meanwhile (another cron run,
	// another terminal), --allow-repeat or not: that flag covers the sends
	// named above.
	return a.runSend(ctx, s, func(ctx context.Context) (*app.Send, error) {
		x, err := p.Start(ctx, app.SendOptions{})
		var r *app.Refusal
		if errors.As(err, &r) && f.asJSON && (r.Rule != app.RuleOnce || !r.Once.SamePairs) {
			// Refused as it starts (a send begun meanwhile): the plan's
			// report on stdout as for a refusal at the check, counts and
			// all; the error follows on stderr.
			if perr := a.printSendJSON(planJSON(p, false), r); perr != nil {
				return nil, perr
			}
		}
		return x, err
	}, planTotals(p), f.asJSON)
}

// resumeSend continues a journaled send.
func (a *command) resumeSend(cmd *cobra.Command, f sendPairFlags) error {
	if f.once != "" {
		return usageError("--once names a new send; a resume continues the send it names (--resume ID) and is never made twice anyway")
	}
	if f.file != "" || f.group != "" || f.template != "" || f.sender != "" || f.messageColumn != "" || f.noHeader || len(f.columns) > 0 || f.noSuffix || f.at != "" {
		return usageError("--resume takes only --include-unknown, --allow-repeat, --ignore-quiet-hours, --dry-run, --yes, --json and --chunk-size: the plan comes from the journal")
	}
	ctx := cmd.Context()
	s, err := a.session(ctx)
	if err != nil {
		return err
	}
	r, err := s.App.PrepareResume(cmd.Context(), f.resume, app.ResumeOptions{IncludeUnknown: f.includeUnknown, AnyBaseURL: a.baseURLFlag != "", AllowRepeat: f.allowRepeat,
		IgnoreQuietHours: f.ignoreQuietHours})
	if err != nil {
		return a.refused(err)
	}
	if len(r.OptedOut) > 0 {
		var who []string
		for _, ix := range r.OptedOut {
			if it, ok := r.State.Item(ix); ok {
				who = append(who, it.Recipient)
			}
		}
		printf(a.env.Stderr, "%s: put on the opt-out list since send %s was planned\n", model.OptedOutCount(who, app.OptedOutShown), f.resume)
	}
	if r.Damage != "" {
		fmt.Fprintf(a.env.Stderr, "Warning: send %s: %s.\n", f.resume, r.Damage)
	}
	if len(r.Unknown) > 0 {
		verb := "will NOT be sent again (pass --include-unknown to send them again)"
		if f.includeUnknown {
			verb = "WILL be sent again: some may already have gone"
		}
		fmt.Fprintf(a.env.Stderr, "%d recipient(s) of send %s have an unknown outcome and %s:\n", len(r.Unknown), f.resume, verb)
		for i, ix := range r.Unknown {
			if i == 20 {
				fmt.Fprintf(a.env.Stderr, "  … and %d more (smsdesk history show %s)\n", len(r.Unknown)-20, f.resume)
				break
			}
			it, _ := r.State.Item(ix)
			printf(a.env.Stderr, "  %s\n", it.Recipient)
		}
	}
	if f.includeUnknown && len(r.Unknown) > 0 {
		a.printAgain(r)
	}
	if f.dryRun {
		return a.printResumePlan(r, f.asJSON)
	}
	if len(r.Todo) == 0 {
		fmt.Fprintf(a.env.Stderr, "Nothing to send: every recipient of send %s was accepted, or its outcome is unknown.\n", f.resume)
		return a.reportOutcome(app.OutcomeOf(r.State), r.State.Plan.Sender, r.State.Plan.Source, f.asJSON)
	}
	fmt.Fprintf(a.env.Stderr, "Time: %s\n", r.Time) // as a new send's summary says it
	if !f.yes {
		q := fmt.Sprintf("Send %s (%s) from %s to %s (resuming send %s)?",
			model.Counted(len(r.Todo), "message"), model.Counted(r.Parts, "SMS part"), r.State.Plan.Sender, model.Counted(len(r.Todo), "recipient"), f.resume)
		ok, err := a.confirm(q, "--yes")
		if err != nil {
			return err
		}
		if !ok {
			return usageError("not sent: the answer was no")
		}
	}
	return a.runSend(ctx, s, func(ctx context.Context) (*app.Send, error) {
		x, gone, err := r.Start(ctx, app.SendOptions{ChunkSize: f.chunkSize})
		if gone > 0 {
			fmt.Fprintf(a.env.Stderr, "%d of the %d recipients were settled by another run of send %s meanwhile; they are not sent again.\n", gone, len(r.Todo), f.resume)
		}
		var ref *app.Refusal
		if errors.As(err, &ref) && ref.Rule == app.RuleNothing {
			fmt.Fprintf(a.env.Stderr, "Nothing left to send: another run of send %s finished it.\n", f.resume)
			return nil, errNothingLeft{app.OutcomeOf(r.State), r.State.Plan.Sender, r.State.Plan.Source}
		}
		return x, err
	}, nil, f.asJSON)
}

// printAgain says, before anything is sent, how the unknown items go again:
// as they first went (same chunk, same items and order, same
// Idempotency-Key), or, where that cannot be, in new chunks under new keys.
func (a *command) printAgain(r *app.Resume) {
	if r.AsFirstSent > 0 {
		fmt.Fprintf(a.env.Stderr, "%d of them go again as they first went (their whole chunk, in the same order, under the same Idempotency-Key): a service that honours the key drops the copy of what it took.\n", r.AsFirstSent)
	}
	if n := r.ApartCount(); n > 0 {
		fmt.Fprintf(a.env.Stderr, "! %d of them cannot go again as they first went; they would go in new chunks under new keys, where a copy cannot be caught:\n", n)
		for _, u := range r.Apart {
			printf(a.env.Stderr, "  %d recipient(s): %s\n", len(u.Unknown), u.Why)
		}
	}
}

// resumePlanJSON is send-pair --resume ID --dry-run --json.
type resumePlanJSON struct {
	ID        string `json:"id"`
	Sender    string `json:"sender"`
	WouldSend int    `json:"would_send"`
	Parts     int    `json:"parts"`
	Unknown   int    `json:"unknown"`
	// UnknownIncluded: the unknown ones are among would_send (--include-unknown).
	UnknownIncluded bool              `json:"unknown_included"`
	Counts          model.StateCounts `json:"counts"`
}

// printResumePlan says what a resume would send, and sends nothing.
func (a *command) printResumePlan(r *app.Resume, asJSON bool) error {
	if asJSON {
		return printJSON(a.env.Stdout, resumePlanJSON{ID: r.ID, Sender: r.State.Plan.Sender, WouldSend: len(r.Todo), Parts: r.Parts,
			Unknown: len(r.Unknown), UnknownIncluded: r.IncludesUnknown(), Counts: r.State.Counts()})
	}
	printf(a.env.Stdout, "Dry run: resuming send %s would send %d messages (%d SMS parts) from %s; %d unknown %s. Nothing was sent.\n",
		r.ID, len(r.Todo), r.Parts, r.State.Plan.Sender, len(r.Unknown),
		map[bool]string{true: "included", false: "left out"}[r.IncludesUnknown()])
	return nil
}

// errNothingLeft: another run finished the send while the question was
// asked; its outcome is reported as it is now.
type errNothingLeft struct {
	outcome        app.Outcome
	sender, source string
}

func (errNothingLeft) Error() string { return "nothing left to send" }

// runSend starts a send (start is a new send or a resume; totals the new
// send's plan in figures, nil for a resume) with progress on
// stderr; SIGINT, SIGTERM or SIGHUP stop it after the chunk in flight. It
// prints the results and returns the exit status.
func (a *command) runSend(parent context.Context, s *session, start func(context.Context) (*app.Send, error), totals *planTotalsJSON, asJSON bool) error {
	// SIGHUP (an SSH session dropped) is a stop like SIGTERM: the chunk in
	// flight finishes and is journaled; it used to kill the process mid-chunk
	// and leave that chunk unknown.
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	x, err := start(ctx)
	var nothing errNothingLeft
	if errors.As(err, &nothing) {
		return a.reportOutcome(nothing.outcome, nothing.sender, nothing.source, asJSON)
	}
	var once *app.Refusal
	if errors.As(err, &once) && once.Rule == app.RuleOnce && once.Once.SamePairs {
		return a.alreadySent(ctx, s, once, asJSON) // another run with the id started first
	}
	if err != nil {
		return a.refused(err)
	}
	go func() {
		select {
		case <-ctx.Done():
			if parent.Err() == nil {
				fmt.Fprintln(a.env.Stderr, "\nstopping after the chunk in flight… (press ctrl+c again to quit at once; that chunk would then be unknown)")
			}
			stop() // a second signal ends the process
		case <-x.Done():
		}
	}()
	a.showProgress(x)
	out, runErr := x.Finish()
	if out.ReadBack != nil {
		fmt.Fprintf(a.env.Stderr, "warning: the send's journal could not be read back (%s); the results below are the run's own\n", cleanError(out.ReadBack))
	}
	// Interrupted is the caller's stop (a signal; a cancelled context in
	// tests) that left items unsent; the engine's own early stops are
	// Stopped, with their cause.
	interrupted := ctx.Err() != nil && out.Summary.Interrupted && out.Summary.Stopped == ""
	if asJSON {
		j := runJSON(x.ID(), out.Results, out.Summary, x.Sender(), x.Source(), interrupted)
		j.Totals = totals // the plan's parts and cost: what the send was to cost
		if err := a.printSendJSON(j, nil); err != nil {
			return err
		}
	} else if err := a.printResults(x.ID(), out.Results, out.Summary, x.Sender(), x.Source(), interrupted, false); err != nil {
		return err
	}
	if hint := senderRefusedHint(out.Results, s); hint != "" {
		fmt.Fprintln(a.env.Stderr, hint)
	}
	return sendExit(x.ID(), out.Summary, runErr, ctx.Err() != nil && parent.Err() == nil)
}

// senderRefusedHint explains a 403 sender_not_allowed: which lines the profile
// knows, and how to record the account's lines.
func senderRefusedHint(results []model.SentItem, s *session) string {
	for _, r := range results {
		if r.Code != "sender_not_allowed" {
			continue
		}
		if len(s.Profile.Senders) == 0 {
			return fmt.Sprintf("→ the service refused the sender line. Profile %s lists no lines of the account; record them with `smsdesk config set senders LINE1,LINE2`.", s.ProfileName)
		}
		return fmt.Sprintf("→ the service refused the sender line. Lines profile %s knows: %s.", s.ProfileName, strings.Join(s.Profile.Senders, ", "))
	}
	return ""
}
