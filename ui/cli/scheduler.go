package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config/ledger"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// schedulerOptions are what scheduler was asked.
type schedulerOptions struct {
	f    *Factory
	IO   *IOStreams
	Once bool
	Late time.Duration
	Poll time.Duration
	// Quiet: -q, under which --once's error lists the sends that need a
	// look (its progress is not printed).
	Quiet bool
}

func newCmdScheduler(f *Factory, runF func(context.Context, *schedulerOptions) error) *cobra.Command {
	o := &schedulerOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = schedulerRun
	}
	cmd := &cobra.Command{
		Use:   "scheduler",
		Short: "Start scheduled sends at their time (in the foreground, or --once for cron)",
		Long: `Starts the profile's scheduled sends (send-pair --at) when their time comes,
and continues sends held at quiet hours when they end, with no command: what
smsdesk serve does while it runs, without SSH. It runs in the foreground until
ctrl+c or SIGTERM (a systemd unit), which stop a send it runs after the chunk
in flight, journaled. --once starts what is due now, waits for it to finish,
and exits (a cron job, every minute). With -q it prints nothing unless a
send needs a look: missed, refused at its start, held at quiet hours,
stopped, or with recipients not accepted or outcomes unknown, one line each
with its id and why; then it exits 1 (3 for unknown outcomes), so that cron
mails exactly that.

At its start a send is checked again as a new send is: numbers put on the
opt-out list since are left out, a send that took its pairs since refuses
it, credit and the key are checked; what refuses it is journaled with the
reason (smsdesk history show ID). A send overdue by more than --late while
no runner ran is marked missed and never sent.

Due sends run side by side, each in its own goroutine, sharing the key's one
request budget: a long send keeps no other past its time. Several runners on
one ledger (serve, a scheduler, a cron job; on several hosts with a
PostgreSQL ledger) claim each send once, and learn of a send scheduled
elsewhere within a second. A runner that dies mid-send loses its claim: another
goes on with what was certainly not sent; what may have gone waits for an
operator (smsdesk send-pair --resume ID). A write to the ledger that fails
stops its send, and the scheduler exits 1 naming the cause. A damaged
ledger (a due send's record that does not parse, a page that fails the
check made before a claim, at most once an hour) starts no send: exit 2,
naming the send and the damage.`,
		Example: "  smsdesk scheduler\n  smsdesk scheduler --once -q       # crontab: * * * * * /full/path/smsdesk --profile live scheduler --once -q\n  smsdesk --profile live scheduler --late 30m",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Quiet = f.quiet
			if err := o.validate(); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&o.Once, "once", false, "start what is due now, wait for it to finish, and exit (for cron: * * * * *)")
	fl.DurationVar(&o.Late, "late", app.DefaultLate, "start a send at most this long after its time; later it is marked missed, never sent")
	fl.DurationVar(&o.Poll, "poll", 30*time.Second, "look for due sends at least this often (besides at each one's time, and within a second of a change to the ledger)")
	return cmd
}

// validate refuses a --late or --poll that cannot be.
func (o *schedulerOptions) validate() error {
	if o.Late <= 0 {
		return usageError("--late %v: give a duration, such as 1h or 30m", o.Late)
	}
	if o.Poll < time.Second {
		return usageError("--poll %v: give 1s or more", o.Poll)
	}
	return nil
}

// schedulerRun runs the profile's due sends (app.Runner): one pass and
// its exit status (--once), or until a signal.
func schedulerRun(parent context.Context, o *schedulerOptions) error {
	s, err := o.f.session(parent)
	if err != nil {
		return err
	}
	kind := model.RunnerScheduler
	if o.Once {
		kind = model.RunnerCron
	}
	var trouble schedulerTrouble // the runner reports one event at a time
	r := &app.Runner{Session: s.Engine.Session(nil), Kind: kind, Late: o.Late, PollDelivery: !o.Once, Report: func(ev app.RunnerEvent) {
		if ev.Kind == app.RunnerWaiting {
			return
		}
		trouble.add(ev)
		printf(o.IO.ErrOut, "%s %s\n", o.f.now().In(s.App.Profile.Zone()).Format("2006-01-02 15:04:05"), ev.Text())
	}}
	// SIGHUP too: a scheduler started from a terminal that closes stops
	// after the chunk in flight, as a send does.
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if o.Once {
		n, err := r.Pass(ctx)
		if err != nil && ctx.Err() == nil {
			return writeFailed(err)
		}
		if n == 0 && len(trouble.lines) == 0 {
			printf(o.IO.ErrOut, "Nothing due for profile %s%s.\n", s.ProfileName, o.nextText(ctx, r, s))
		}
		return o.exit(ctx, parent, trouble)
	}
	printf(o.IO.ErrOut, "smsdesk scheduler: starting the scheduled sends of profile %s on %s at their time (--late %s); ctrl+c stops it%s.\n",
		s.ProfileName, hostOf(s.BaseURL), model.Countdown(o.Late), o.nextText(ctx, r, s))
	if err := r.Loop(ctx, o.Poll); err != nil {
		return writeFailed(err)
	}
	if parent.Err() == nil {
		fmt.Fprintln(o.IO.ErrOut, "Stopped: every send is journaled (smsdesk history).")
	}
	return nil
}

// writeFailed is the scheduler's error when it could not look for due
// sends, or a write to the ledger failed and stopped a send: exit 1,
// naming the cause. A send stopped (app.SendStoppedError) is told what is
// true of what went: every request was recorded before it left; the chunk
// in flight when the write failed may have been taken, and is unknown. A
// run whose lease another runner took (this one was stopped past its
// lease: SIGSTOP, a frozen VM) is told so. A look that failed (a ledger
// that does not answer) stopped no send: it says so. A ledger that is
// damaged, cannot be opened, has gone or is another's started no send:
// exit 2, error.code ledger, as every command it refuses, with the
// ledger's own words (the send, the damage, how to restore it).
func writeFailed(err error) error {
	var stopped *app.SendStoppedError
	switch {
	case ledgerRefused(err):
		return &ExitError{Code: ExitUsage, Kind: "ledger", Err: fmt.Errorf("scheduler stopped: %w", err)}
	case errors.Is(err, ledger.ErrLeaseLost):
		return &ExitError{Code: ExitService, Kind: "service", Err: fmt.Errorf("scheduler stopped: %w", err),
			Hint: "this runner was stopped past its lease, and another runner took the send over: the chunk this one had in flight may have gone and is unknown (its request was recorded before it left, its answer could not be); smsdesk history show ID lists it, and the other runner goes on with what certainly did not go"}
	case errors.As(err, &stopped):
		return &ExitError{Code: ExitService, Kind: "service", Err: fmt.Errorf("scheduler stopped: %w", err),
			Hint: "every request was recorded before it left, but the chunk in flight when the write failed may have gone and is unknown; once the ledger takes writes again, smsdesk history show ID lists it, and a resume sends what certainly did not go"}
	}
	return &ExitError{Code: ExitService, Kind: "service", Err: fmt.Errorf("scheduler stopped: %w", err),
		Hint: "it could not look at the ledger, and no send stopped for it (any it started is journaled: smsdesk history); check the ledger with smsdesk ledger status, then run it again"}
}

// nextText says when the next send is due: "; next: send ID at …", or "".
func (o *schedulerOptions) nextText(ctx context.Context, r *app.Runner, s *session) string {
	next, err := r.Next(ctx)
	if err != nil || next.IsZero() {
		return ""
	}
	return fmt.Sprintf("; the next is due %s (%s)", model.AtText(next, s.App.Profile.Zone()), model.DueText(next, o.f.now()))
}

// schedulerTrouble is what a scheduler --once pass leaves for a person:
// one line per send missed, refused (before or during its run), held at
// quiet hours, left with outcomes unknown or recipients not accepted, or
// that could not be looked at. A send that went as planned is no trouble.
type schedulerTrouble struct {
	lines   []string
	unknown bool // some recipients' outcome is unknown
}

func (t *schedulerTrouble) add(ev app.RunnerEvent) {
	switch ev.Kind {
	case app.RunnerStarted, app.RunnerDelivery, app.RunnerLedgerWait: // a wait is no trouble: it goes on, or fails as a write
		return
	case app.RunnerFinished:
		sum := ev.Outcome.Summary
		c := sum.Counts
		if ev.Err == nil && c.Unknown+c.Rejected+c.Failed+c.NotSent == 0 && sum.HeldUntil.IsZero() && sum.Stopped == "" {
			return
		}
		t.unknown = t.unknown || c.Unknown > 0
	}
	t.lines = append(t.lines, ev.Text())
}

// exit is --once's status: 130 when a signal stopped it; 3 when a
// send it ran left outcomes unknown; 1 when a send was missed, refused,
// held or not wholly accepted (cron mails it). Under -q its progress is
// not printed, so the error lists those sends, one line each.
func (o *schedulerOptions) exit(ctx, parent context.Context, t schedulerTrouble) error {
	var details []string
	if o.Quiet {
		details = t.lines
	}
	switch {
	case ctx.Err() != nil && parent.Err() == nil:
		return &ExitError{Code: ExitInterrupted, Kind: "interrupted", Err: fmt.Errorf("stopped by a signal after the chunk in flight")}
	case len(t.lines) == 0:
		return nil
	case t.unknown:
		return &ExitError{Code: ExitUnknown, Kind: "unknown_outcome", Details: details, Err: fmt.Errorf("%s: some outcomes are unknown", needLook(len(t.lines))),
			Hint: "smsdesk history show ID lists them; never send them again before checking"}
	}
	return &ExitError{Code: ExitService, Kind: "service", Details: details, Err: errors.New(needLook(len(t.lines))),
		Hint: "smsdesk history show ID says why"}
}

// needLook is "1 send needs a look", "2 sends need a look".
func needLook(n int) string {
	if n == 1 {
		return "1 send needs a look"
	}
	return fmt.Sprintf("%d sends need a look", n)
}
