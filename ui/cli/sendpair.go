package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// sendPairFlags are send-pair's flags.
type sendPairFlags struct {
	sender, file, group, template string
	messageColumn                 string
	to, message                   []string // --to and --message, paired in order
	dryRun, yes, asJSON           bool
	allowRepeat                   bool
	chunkSize                     int
	resume                        string
	includeUnknown                bool
}

func (a *app) sendPairCommand() *cobra.Command {
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
                              is refused: that is a contacts file, use --template
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
that chunk; the rest continues with --resume once fixed. Every step is
recorded in a journal in the state directory: ` + "`smsdesk history`" + ` lists sends.
Nothing whose outcome is unknown is sent again unless you say so
(--include-unknown).

Exit codes: 0 all accepted; 1 some rejected, failed or not sent; 2 usage or
input error (nothing sent); 3 the outcome of some recipients is unknown.`,
		Example: `  smsdesk send-pair --to 09121234567 --message "Your code is 4821"
  smsdesk send-pair --to 09121234567 --message "Hi Ali" --to 09351234567 --message "Hi Sara"
  smsdesk send-pair --file pairs.csv --dry-run
  smsdesk send-pair --sender 3000505 --file pairs.csv --yes --json
  smsdesk send-pair --file vars.csv --template "Hi {name|friend}, your code is {code}"
  smsdesk send-pair --group 12 --template "Hello {name|friend}"
  smsdesk send-pair --resume 20260102-150405-3fa9c1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
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
	fl.BoolVar(&f.allowRepeat, "allow-repeat", false, "send pairs already accepted within the profile's repeat_window again")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the plan and send nothing")
	fl.BoolVarP(&f.yes, "yes", "y", false, "send without asking")
	fl.BoolVar(&f.asJSON, "json", false, "print results as JSON")
	fl.IntVar(&f.chunkSize, "chunk-size", 0, "items per request (default: the profile's, else 100)")
	fl.StringVar(&f.resume, "resume", "", "continue send ID: send only what certainly did not go")
	fl.BoolVar(&f.includeUnknown, "include-unknown", false, "with --resume: also send again items whose outcome is unknown")
	return cmd
}

// newSend plans, checks, confirms and sends a new paired send.
func (a *app) newSend(cmd *cobra.Command, f sendPairFlags) error {
	switch {
	case f.includeUnknown:
		return usageError("--include-unknown goes with --resume ID")
	case (len(f.to) > 0 || len(f.message) > 0) && (f.file != "" || f.group != "" || f.template != "" || f.messageColumn != ""):
		return usageError("--to and --message give the pairs themselves: not with --file, --group, --template or --message-column")
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
	case f.chunkSize < 0 || f.chunkSize > config.MaxChunkSize:
		return usageError("--chunk-size %d: use 1 to %d", f.chunkSize, config.MaxChunkSize)
	}
	ctx := cmd.Context()
	s, err := a.local()
	if err != nil {
		return err
	}
	if f.group != "" || !f.dryRun { // the network is needed
		if s, err = a.session(ctx); err != nil {
			return err
		}
	}
	sender := strings.TrimSpace(firstNonEmpty(f.sender, s.Profile.Sender))
	if sender == "" {
		return usageError("no sender line: pass --sender LINE, or set one for profile %q (smsdesk config set sender LINE)", s.ProfileName)
	}
	rows, source, err := a.planRows(ctx, s, f)
	if err != nil {
		return err
	}
	plan := model.BuildPlan(sender, rows, model.PlanOptions{Format: s.numberFormat(), AllowInternational: s.Profile.AllowInternational})
	facts, err := a.sendFacts(ctx, s)
	if err != nil {
		return err
	}
	v := model.CheckSend(plan, facts)
	if err := a.refuse(plan, &v, facts, source, f.allowRepeat, f.asJSON); err != nil {
		return err
	}
	if f.dryRun {
		return a.printPlan(plan, &v, f.asJSON)
	}
	printSendSummary(a.env.Stderr, s, &v, source)
	n, parts := len(plan.Items), plan.TotalParts()
	if !f.yes {
		q := fmt.Sprintf("Send %d messages (%d SMS parts) from %s to %d recipients?", n, parts, model.SanitizeLine(sender), n)
		ok, err := a.confirm(q, "--yes")
		if err != nil {
			return err
		}
		if !ok {
			return usageError("not sent: the answer was no")
		}
	}
	items := make([]model.JournalItem, n)
	for i, it := range plan.Items {
		items[i] = model.JournalItem{Index: it.Index, Recipient: it.Recipient, Message: it.Message, Parts: it.Parts.Parts, Line: it.Line}
	}
	job := dispatch.NewJob(dispatch.NewID(time.Now()), sender, items)
	j, err := config.CreateJournal(s.Paths, job.ID)
	if err != nil {
		return fmt.Errorf("%w; nothing was sent", err)
	}
	defer j.Close()
	opts := dispatch.Options{ChunkSize: firstPositive(f.chunkSize, s.Profile.ChunkSize), Journal: j, Profile: s.ProfileName, Source: source, BaseURL: s.BaseURL}
	return a.runSend(ctx, s, job, opts, f.asJSON)
}

// resumeSend continues a journaled send.
func (a *app) resumeSend(cmd *cobra.Command, f sendPairFlags) error {
	if f.file != "" || f.group != "" || f.template != "" || f.sender != "" || f.dryRun || f.messageColumn != "" || f.allowRepeat {
		return usageError("--resume takes only --include-unknown, --yes, --json and --chunk-size: the plan comes from the journal")
	}
	ctx := cmd.Context()
	s, err := a.session(ctx)
	if err != nil {
		return err
	}
	st, err := config.ReadJournal(s.Paths, f.resume)
	if errors.Is(err, config.ErrNoSuchSend) {
		return usageError("%w", err)
	}
	if err != nil {
		return err
	}
	if b := st.Plan.BaseURL; b != "" && b != s.BaseURL && a.baseURLFlag == "" {
		return usageError("send %s went to %s, but this profile uses %s: pass --base-url %s to resume it there (or --base-url with the other URL to resume here on purpose)",
			f.resume, model.SanitizeLine(b), model.SanitizeLine(s.BaseURL), model.SanitizeLine(b))
	}
	if st.Plan.Profile != "" && st.Plan.Profile != s.ProfileName {
		return usageError("send %s was made with profile %q, not %q: pass --profile %s", f.resume,
			model.SanitizeLine(st.Plan.Profile), s.ProfileName, model.SanitizeLine(st.Plan.Profile))
	}
	if d := damageText(st); d != "" {
		fmt.Fprintf(a.env.Stderr, "Warning: send %s: %s.\n", f.resume, d)
	}
	unknown := st.SortedIndexes(model.StateUnknown)
	if len(unknown) > 0 {
		verb := "will NOT be sent again (pass --include-unknown to send them again)"
		if f.includeUnknown {
			verb = "WILL be sent again: some may already have gone"
		}
		fmt.Fprintf(a.env.Stderr, "%d recipient(s) of send %s have an unknown outcome and %s:\n", len(unknown), f.resume, verb)
		for i, ix := range unknown {
			if i == 20 {
				fmt.Fprintf(a.env.Stderr, "  … and %d more (smsdesk history show %s)\n", len(unknown)-20, f.resume)
				break
			}
			it, _ := st.Item(ix)
			fmt.Fprintf(a.env.Stderr, "  %s\n", model.SanitizeLine(it.Recipient))
		}
	}
	job := dispatch.ResumeJob(st, f.includeUnknown)
	todo := job.ToSend()
	if len(todo) == 0 {
		fmt.Fprintf(a.env.Stderr, "Nothing to send: every recipient of send %s was accepted, or its outcome is unknown.\n", f.resume)
		return a.reportState(st, f.asJSON)
	}
	if !f.yes {
		parts := 0
		for _, ix := range todo {
			it, _ := st.Item(ix)
			parts += it.Parts
		}
		q := fmt.Sprintf("Send %d messages (%d SMS parts) from %s to %d recipients (resuming send %s)?",
			len(todo), parts, model.SanitizeLine(st.Plan.Sender), len(todo), f.resume)
		ok, err := a.confirm(q, "--yes")
		if err != nil {
			return err
		}
		if !ok {
			return usageError("not sent: the answer was no")
		}
	}
	// Decide under the lock, from the journal as it is now: another process
	// may have resumed this send while the question was on screen.
	j, fresh, err := config.OpenJournalLocked(s.Paths, f.resume)
	if err != nil {
		return err
	}
	defer j.Close()
	job = dispatch.ResumeJob(fresh, f.includeUnknown)
	if gone := job.Narrow(todo); gone > 0 {
		fmt.Fprintf(a.env.Stderr, "%d of the %d recipients were settled by another run of send %s meanwhile; they are not sent again.\n", gone, len(todo), f.resume)
	}
	if len(job.ToSend()) == 0 {
		fmt.Fprintf(a.env.Stderr, "Nothing left to send: another run of send %s finished it.\n", f.resume)
		return a.reportState(fresh, f.asJSON)
	}
	opts := dispatch.Options{ChunkSize: firstPositive(f.chunkSize, fresh.Plan.ChunkSize, s.Profile.ChunkSize), Journal: j}
	return a.runSend(ctx, s, job, opts, f.asJSON)
}

// runSend runs a job with progress on stderr; SIGINT or SIGTERM stop it after
// the chunk in flight. It prints the results and returns the exit status.
func (a *app) runSend(parent context.Context, s *session, job *dispatch.Job, opts dispatch.Options, asJSON bool) error {
	// SIGHUP (an SSH session dropped) is a stop like SIGTERM: the chunk in
	// flight finishes and is journaled; it used to kill the process mid-chunk
	// and leave that chunk unknown.
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	opts.Now, opts.Sleep = a.env.Now, a.env.Sleep
	if d, err := s.Profile.Retry(); err == nil {
		opts.RetryFor = d
	}
	run, err := dispatch.Start(ctx, s.Client, job, opts)
	if err != nil {
		if jf, ok := opts.Journal.(*config.JournalFile); ok && !job.IsResume() {
			_ = jf.Discard() // its plan is not whole; nothing was sent
		}
		return fmt.Errorf("%w; nothing was sent", err)
	}
	go func() {
		select {
		case <-ctx.Done():
			if parent.Err() == nil {
				fmt.Fprintln(a.env.Stderr, "\nstopping after the chunk in flight… (press ctrl+c again to quit at once; that chunk would then be unknown)")
			}
			stop() // a second signal ends the process
		case <-run.Done():
		}
	}()
	a.showProgress(run)
	sum, runErr := run.Wait()
	results := run.Results()
	if jf, ok := opts.Journal.(*config.JournalFile); ok {
		// What is printed comes from the journal, as history will show it:
		// after a failed write (a full disk) the run's own view may claim
		// more than the journal can vouch for.
		_ = jf.Close()
		if st, err := config.ReadJournal(s.Paths, job.ID); err == nil {
			results, sum.Counts = resultsOf(st), st.Counts()
		} else {
			fmt.Fprintf(a.env.Stderr, "warning: the send's journal could not be read back (%s); the results below are the run's own\n", cleanError(err))
		}
	}
	if err := a.printResults(job.ID, results, sum, asJSON); err != nil {
		return err
	}
	if hint := senderRefusedHint(results, s); hint != "" {
		fmt.Fprintln(a.env.Stderr, hint)
	}
	return sendExit(job.ID, sum, runErr)
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

func firstPositive(vs ...int) int {
	for _, v := range vs {
		if v > 0 {
			return v
		}
	}
	return 0
}
