package cli

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// sendPairOptions are what send-pair was asked: where the pairs come from,
// when, and what the operator says of the rules. A new send gathers them
// into one request for ui/app (sendRequest); a resume continues the send
// it names.
type sendPairOptions struct {
	f  *Factory
	IO *IOStreams
	// rules are the new send's line rules, for its report (--json).
	rules *rulesJSON

	Sender, File, Group, Template string
	Sheet                         string // --sheet: a workbook's sheet (default its first)
	MessageColumn                 string
	NoHeader                      bool     // the pairs file has no header: recipient, message
	Columns                       []string // names for a pairs file's columns (it has no header)
	To, Message                   []string // --to and --message, paired in order
	DryRun, Yes, JSON             bool
	AllowRepeat                   bool
	ChunkSize                     int
	Resume                        string
	ResendFailed                  string // --resend-failed ID: the send whose failed messages go again
	IncludeRejected               bool   // with --resend-failed: the rejected ones too
	Once                          string // --once ID: at most one send with this id on the account
	IncludeUnknown                bool
	NoSuffix, IgnoreQuietHours    bool
	At                            string // --at: schedule the send for then
	AtGiven                       bool   // --at was given, even empty
	// AnyBaseURL: --base-url was given; a resume goes on against it even
	// when the send went to another (on purpose).
	AnyBaseURL bool
}

// newCmdSendPair is send-pair: it fills sendPairOptions from the flags,
// checks what the flags cannot say alone (validate) and runs runF
// (sendPairRun unless a test gives its own).
func newCmdSendPair(f *Factory, runF func(context.Context, *sendPairOptions) error) *cobra.Command {
	o := &sendPairOptions{f: f, IO: f.IO}
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

--resend-failed ID sends again, as a new send from the same line, the messages
of send ID whose delivery failed (and those the service rejected, with
--include-rejected): never a delivered one, one with no final state yet or no
report, one the service never accepted, nor a number opted out of the line
since. Every rule is checked again (the suffix as set now, quiet hours, credit,
repeats: the failed pairs are no repeat of send ID, but a second resend of it
is a repeat of the first). The new send names ID (resend_of).

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
  smsdesk send-pair --resume 20260102-150405-3fa9c1
  smsdesk send-pair --resend-failed 20260102-150405-3fa9c1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.AtGiven, o.AnyBaseURL = cmd.Flags().Changed("at"), f.baseURLFlag != ""
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return sendPairRun(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Sender, "sender", "", "sender line (default: the profile's)")
	fl.StringVar(&o.File, "file", "", "CSV or Excel (.xlsx) file: recipient,message per row (or any columns, with --template); - reads stdin (with --yes)")
	addSheetFlag(cmd, &o.Sheet)
	fl.StringVar(&o.Group, "group", "", "send to a group's contacts (with --template)")
	fl.StringArrayVar(&o.To, "to", nil, "a recipient; repeat for more, each with its own --message")
	fl.StringArrayVar(&o.Message, "message", nil, "the message for the --to in the same place")
	fl.StringVar(&o.Template, "template", "", "message template over --file's rows or --group's contacts: {name}, {mobile}, any column; {name|friend} for a fallback")
	fl.StringVar(&o.MessageColumn, "message-column", "", "the pairs file's message column, when it is not message, text or body")
	fl.BoolVar(&o.NoHeader, "no-header", false, "the pairs file has no header row: its columns are recipient, message (even when the messages read like names)")
	fl.StringSliceVar(&o.Columns, "columns", nil, "name the columns of a pairs file that has no header, in order: --columns mobile,message (or message,mobile; other columns any name)")
	fl.BoolVar(&o.AllowRepeat, "allow-repeat", false, "send pairs already accepted (or maybe sent) within the profile's repeat_window again; with --resume, pairs other sends took")
	fl.BoolVar(&o.DryRun, "dry-run", false, "print the plan and send nothing")
	fl.BoolVarP(&o.Yes, "yes", "y", false, "send without asking")
	addJSONFlag(cmd, &o.JSON, "print results as JSON", sendPairFields, "smsdesk send-pair --file pairs.csv --yes --json=id,counts   # only the send's id and counts")
	fl.IntVar(&o.ChunkSize, "chunk-size", 0, "items per request (default: the profile's, else 100)")
	fl.StringVar(&o.Resume, "resume", "", "continue send ID: send only what certainly did not go")
	fl.StringVar(&o.Once, "once", "", "make this send at most once on the account (any profile, any operator), e.g. --once \"reminders-$(date +%F)\": run again with the same pairs, it says which send it was and sends nothing")
	fl.StringVar(&o.ResendFailed, "resend-failed", "", "send again, as a new send, the messages of send ID whose delivery failed")
	fl.BoolVar(&o.IncludeRejected, "include-rejected", false, "with --resend-failed: also the messages the service rejected after taking them")
	fl.BoolVar(&o.IncludeUnknown, "include-unknown", false, "with --resume: also send again items whose outcome is unknown")
	fl.BoolVar(&o.NoSuffix, "no-suffix", false, "leave the profile's optout_suffix out of this send's messages (recorded in its journal)")
	fl.BoolVar(&o.IgnoreQuietHours, "ignore-quiet-hours", false, "send inside, or on past the start of, the profile's quiet_hours (recorded in the journal and the audit trail)")
	fl.StringVar(&o.At, "at", "", "schedule the send for TIME instead of sending now: 08:00, \"2026-11-26 08:00\", RFC 3339, +30m; smsdesk serve or smsdesk scheduler start it then")
	return cmd
}

// validate refuses what send-pair's flags cannot mean together, before
// anything is read or asked: the first of the rules below that a new send
// (or a resume) meets, then a --once id that cannot be one.
func (o *sendPairOptions) validate() error {
	if o.AtGiven && strings.TrimSpace(o.At) == "" {
		// A cron line's --at "$WHEN" with WHEN unset: read as no --at, it
		// would send now what was meant for later.
		return usageError("--at is empty (an unset variable in a cron line?): give a time, e.g. --at 08:00 or --at +30m, or leave --at out to send now; nothing was sent")
	}
	if o.Resume != "" {
		return checkFlags(o, resumeFlagRules)
	}
	if o.ResendFailed != "" {
		return checkFlags(o, resendFlagRules)
	}
	if err := checkFlags(o, newSendFlagRules); err != nil {
		return err
	}
	if o.Once != "" {
		if err := model.CheckOnceID(o.Once); err != nil {
			return usageError("--once %q: %v; use letters, digits and punctuation, e.g. --once \"reminders-$(date +%%F)\"", model.SanitizeLine(o.Once), err)
		}
	}
	return nil
}

// pairsGiven: --to or --message. pairsFileFlags: a flag that describes a
// pairs file's columns.
func (o *sendPairOptions) pairsGiven() bool { return len(o.To) > 0 || len(o.Message) > 0 }
func (o *sendPairOptions) pairsFileFlags() bool {
	return o.MessageColumn != "" || o.NoHeader || len(o.Columns) > 0
}

// newSendFlagRules are the flag combinations a new send refuses, in the
// order they are checked.
var newSendFlagRules = []flagRule[sendPairOptions]{
	{refuses: func(o *sendPairOptions) bool { return o.IncludeUnknown },
		says: "--include-unknown goes with --resume ID"},
	includeRejectedRule,
	{refuses: func(o *sendPairOptions) bool {
		return o.pairsGiven() && (o.File != "" || o.Group != "" || o.Template != "" || o.pairsFileFlags())
	}, says: "--to and --message give the pairs themselves: not with --file, --group, --template, --message-column, --no-header or --columns"},
	{refuses: func(o *sendPairOptions) bool { return len(o.To) != len(o.Message) },
		says: "--to and --message pair up in order: %d --to but %d --message", args: func(o *sendPairOptions) []any { return []any{len(o.To), len(o.Message)} }},
	{refuses: func(o *sendPairOptions) bool { return o.File != "" && o.Group != "" },
		says: "give either --file or --group, not both"},
	{refuses: func(o *sendPairOptions) bool { return o.File == "" && o.Group == "" && len(o.To) == 0 },
		says: "nothing to send: give --to NUMBER --message TEXT, --file PAIRS.csv, --file CONTACTS.csv with --template TEXT, or --group ID with --template TEXT"},
	{refuses: func(o *sendPairOptions) bool { return o.Group != "" && o.Template == "" },
		says: "--group needs --template TEXT (use {name} and {mobile}; {name|friend} for a fallback)"},
	{refuses: func(o *sendPairOptions) bool { return o.MessageColumn != "" && (o.File == "" || o.Template != "") },
		says: "--message-column names a pairs file's message column: it goes with --file, not with --template"},
	{refuses: func(o *sendPairOptions) bool {
		return (o.NoHeader || len(o.Columns) > 0) && (o.File == "" || o.Template != "")
	},
		says: "--no-header and --columns describe a pairs file's columns: they go with --file, not with --template (a contacts file without a header is read as mobile,name)"},
	{refuses: func(o *sendPairOptions) bool { return o.NoHeader && (len(o.Columns) > 0 || o.MessageColumn != "") },
		says: "--no-header reads the columns as recipient, message: not with --columns or --message-column (name the columns with --columns instead)"},
	{refuses: func(o *sendPairOptions) bool { return o.ChunkSize < 0 || o.ChunkSize > config.MaxChunkSize },
		says: "--chunk-size %d: use 1 to %d", args: func(o *sendPairOptions) []any { return []any{o.ChunkSize, config.MaxChunkSize} }},
	{refuses: func(o *sendPairOptions) bool { return o.Sheet != "" && o.File == "" },
		says: "--sheet names a sheet of --file's workbook: it goes with --file"},
	{refuses: func(o *sendPairOptions) bool { return o.At != "" && o.File == "-" },
		says: "--at keeps the rows to send them later: give a file, not stdin (--file -)"},
}

// resumeFlagRules are the flags a resume refuses: its plan comes from its
// journal.
var resumeFlagRules = []flagRule[sendPairOptions]{
	{refuses: func(o *sendPairOptions) bool { return o.ResendFailed != "" },
		says: "give either --resume ID (what certainly did not go) or --resend-failed ID (what went and failed delivery), not both"},
	includeRejectedRule,
	{refuses: func(o *sendPairOptions) bool { return o.Once != "" },
		says: "--once names a new send; a resume continues the send it names (--resume ID) and is never made twice anyway"},
	{refuses: func(o *sendPairOptions) bool {
		return o.File != "" || o.Group != "" || o.Template != "" || o.Sender != "" || o.pairsFileFlags() || o.Sheet != "" || o.NoSuffix || o.At != ""
	}, says: "--resume takes only --include-unknown, --allow-repeat, --ignore-quiet-hours, --dry-run, --yes, --json and --chunk-size: the plan comes from the journal"},
}

// includeRejectedRule: --include-rejected says which failures a resend
// takes.
var includeRejectedRule = flagRule[sendPairOptions]{refuses: func(o *sendPairOptions) bool { return o.IncludeRejected && o.ResendFailed == "" },
	says: "--include-rejected goes with --resend-failed ID"}

// resendFlagRules are the flags a resend of failures refuses: its
// messages and its line come from the send it names, and it goes now.
var resendFlagRules = []flagRule[sendPairOptions]{
	{refuses: func(o *sendPairOptions) bool {
		return o.pairsGiven() || o.File != "" || o.Group != "" || o.Template != "" || o.pairsFileFlags() || o.Sheet != "" || o.Sender != "" || o.At != "" ||
			o.Once != "" || o.IncludeUnknown
	}, says: "--resend-failed takes only --include-rejected, --no-suffix, --allow-repeat, --ignore-quiet-hours, --chunk-size, --dry-run, --yes and --json: the messages and the line come from the send it names, and it goes now"},
	{refuses: func(o *sendPairOptions) bool { return o.ChunkSize < 0 || o.ChunkSize > config.MaxChunkSize },
		says: "--chunk-size %d: use 1 to %d", args: func(o *sendPairOptions) []any { return []any{o.ChunkSize, config.MaxChunkSize} }},
}

// sendPairRun sends what o asks: a new send, or the rest of one (--resume).
func sendPairRun(ctx context.Context, o *sendPairOptions) error {
	if o.Resume != "" {
		return resumeRun(ctx, o)
	}
	return newSendRun(ctx, o)
}
