package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// schedulerFlags are smsdesk scheduler's flags.
type schedulerFlags struct {
	once bool
	late time.Duration
	poll time.Duration
}

func (a *command) schedulerCommand() *cobra.Command {
	var f schedulerFlags
	cmd := &cobra.Command{
		Use:   "scheduler",
		Short: "Start scheduled sends at their time (in the foreground, or --once for cron)",
		Long: `Starts the profile's scheduled sends (send-pair --at) when their time comes,
and continues sends held at quiet hours when they end, with no command: what
smsdesk serve does while it runs, without SSH. It runs in the foreground until
ctrl+c or SIGTERM (a systemd unit), which stop a send it runs after the chunk
in flight, journaled. --once starts what is due now, waits for it to finish,
and exits (a cron job, every minute).

At its start a send is checked again as a new send is: numbers put on the
opt-out list since are left out, a send that took its pairs since refuses
it, credit and the key are checked; what refuses it is journaled with the
reason (smsdesk history show ID). A send overdue by more than --late while
no runner ran is marked missed and never sent. Several runners on one state
directory (serve, a scheduler, a cron job) start each send once.`,
		Example: "  smsdesk scheduler\n  smsdesk scheduler --once          # crontab: * * * * * smsdesk scheduler --once\n  smsdesk --profile live scheduler --late 30m",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runScheduler(cmd.Context(), f)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.once, "once", false, "start what is due now, wait for it to finish, and exit (for cron: * * * * *)")
	fl.DurationVar(&f.late, "late", app.DefaultLate, "start a send at most this long after its time; later it is marked missed, never sent")
	fl.DurationVar(&f.poll, "poll", 30*time.Second, "look for due sends at least this often (and at each one's time)")
	return cmd
}

func (a *command) runScheduler(parent context.Context, f schedulerFlags) error {
	if f.late <= 0 {
		return usageError("--late %v: give a duration, such as 1h or 30m", f.late)
	}
	if f.poll < time.Second {
		return usageError("--poll %v: give 1s or more", f.poll)
	}
	s, err := a.session(parent)
	if err != nil {
		return err
	}
	kind := model.RunnerScheduler
	if f.once {
		kind = model.RunnerCron
	}
	failed := 0
	r := &app.Runner{Session: s.Engine.Session(nil), Kind: kind, Late: f.late, Report: func(ev app.RunnerEvent) {
		if ev.Kind == app.RunnerFailed || ev.Kind == app.RunnerRefused || ev.Kind == app.RunnerMissed {
			failed++
		}
		printf(a.env.Stderr, "%s %s\n", a.now().In(s.App.Profile.Zone()).Format("2006-01-02 15:04:05"), ev.Text())
	}}
	// SIGHUP too: a scheduler started from a terminal that closes stops
	// after the chunk in flight, as a send does.
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if f.once {
		n, err := r.Pass(ctx)
		if err != nil && ctx.Err() == nil {
			return err
		}
		if n == 0 && failed == 0 {
			printf(a.env.Stderr, "Nothing due for profile %s%s.\n", s.ProfileName, a.nextText(r, s))
		}
		return a.schedulerExit(ctx, parent, failed)
	}
	printf(a.env.Stderr, "smsdesk scheduler: starting the scheduled sends of profile %s on %s at their time (--late %s); ctrl+c stops it%s.\n",
		s.ProfileName, hostOf(s.BaseURL), model.Countdown(f.late), a.nextText(r, s))
	r.Loop(ctx, f.poll)
	if parent.Err() == nil {
		fmt.Fprintln(a.env.Stderr, "Stopped: every send is journaled (smsdesk history).")
	}
	return nil
}

// nextText says when the next send is due: "; next: send ID at …", or "".
func (a *command) nextText(r *app.Runner, s *session) string {
	next, err := r.Next()
	if err != nil || next.IsZero() {
		return ""
	}
	return fmt.Sprintf("; the next is due %s (%s)", model.AtText(next, s.App.Profile.Zone()), model.DueText(next, a.now()))
}

// schedulerExit is --once's status: 130 when a signal stopped it, 1 when a
// due send was refused, missed or could not start (cron mails the output).
func (a *command) schedulerExit(ctx, parent context.Context, failed int) error {
	switch {
	case ctx.Err() != nil && parent.Err() == nil:
		return &ExitError{Code: ExitInterrupted, Kind: "interrupted", Err: fmt.Errorf("stopped by a signal after the chunk in flight")}
	case failed > 0:
		return &ExitError{Code: ExitService, Kind: "service", Err: fmt.Errorf("%d due send(s) did not start (above)", failed),
			Hint: "smsdesk history show ID says why"}
	}
	return nil
}
