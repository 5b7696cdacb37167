package cli

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// inboxFields are `inbox --json`'s keys, in order.
var inboxFields = []string{"message_id", "sender", "line", "message", "received_at", "action", "send_id"}

// inboxJSON is one message of `inbox --json`.
type inboxJSON struct {
	MessageID  string  `json:"message_id"`
	Sender     string  `json:"sender"`
	Line       string  `json:"line"`
	Message    string  `json:"message"`
	ReceivedAt string  `json:"received_at"` // RFC 3339 in the profile's timezone
	Action     *string `json:"action"`      // opted_out, opted_in, or null
	SendID     *string `json:"send_id"`     // the last send to the sender from that line, or null
}

// defaultInboxLimit is how many messages a table shows without --limit.
const defaultInboxLimit = 50

// inboxOptions are what `smsdesk inbox` was asked.
type inboxOptions struct {
	f          *Factory
	IO         *IOStreams
	JSON       bool
	Since      string
	Line       string
	Limit      int
	LimitGiven bool
}

func newCmdInbox(f *Factory, runF func(context.Context, *inboxOptions) error) *cobra.Command {
	o := &inboxOptions{f: f, IO: f.IO}
	if runF == nil {
		runF = inboxRun
	}
	cmd := &cobra.Command{
		Use:   "inbox",
		Short: "What recipients wrote back to your lines, newest first",
		Long: `Lists the replies the webhook receiver kept (sms.inbound events), newest
first: who wrote, to which line, what, when (in the profile's timezone), what
it did to that line's opt-out list («۱۱» opts out, «۱۲» back in), and the last
send to that number from that line. A table shows the newest 50 unless --limit
says otherwise; --json without --limit gives every message that matches.`,
		Example: "  smsdesk inbox\n  smsdesk inbox --since 24h --line 3000505\n  smsdesk inbox --json --since 2026-11-01",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.LimitGiven = cmd.Flags().Changed("limit")
			return runF(cmd.Context(), o)
		},
	}
	addJSONFlag(cmd, &o.JSON, "print as JSON", inboxFields, "smsdesk inbox --json=sender,message,action")
	cmd.Flags().StringVar(&o.Since, "since", "", "only messages since then: a duration (24h, 7d) or a date (2026-11-01, in the profile's timezone)")
	cmd.Flags().StringVar(&o.Line, "line", "", "only messages written to this line")
	cmd.Flags().IntVar(&o.Limit, "limit", defaultInboxLimit, "list at most N messages, the newest (0: every one)")
	return cmd
}

// limit is how many messages to read: --limit's, or every one for --json
// without it.
func (o *inboxOptions) limit() int {
	if o.JSON && !o.LimitGiven {
		return 0
	}
	return o.Limit
}

// inboxRun reads the inbox through the application layer and prints it.
func inboxRun(ctx context.Context, o *inboxOptions) error {
	if o.Limit < 0 {
		return usageError("--limit %d: give a positive number (0 lists every message)", o.Limit)
	}
	s, err := o.f.session(ctx)
	if err != nil {
		return err
	}
	since, err := parseSinceIn(o.Since, o.f.now(), s.App.Profile.Zone())
	if err != nil {
		return err
	}
	msgs, err := s.App.Inbox(ctx, app.InboxQuery{Since: since, Line: o.Line, Limit: o.limit()})
	if err != nil {
		return refused(err)
	}
	if o.JSON {
		out := make([]inboxJSON, len(msgs))
		for i, m := range msgs {
			out[i] = inboxJSON{MessageID: m.MessageID, Sender: m.Sender, Line: m.Line, Message: m.Message,
				ReceivedAt: m.ReceivedAt.Format(time.RFC3339), Action: nullable(string(m.Action)), SendID: nullable(m.SendID)}
		}
		return printJSON(o.IO.Out, out)
	}
	if len(msgs) == 0 {
		printf(o.IO.ErrOut, "no replies in the inbox%s (replies come through the webhook receiver: smsdesk webhook --help)\n", inboxFilterText(*o))
		return nil
	}
	rows := make([][]string, len(msgs))
	for i, m := range msgs {
		rows[i] = []string{m.ReceivedAt.Format("2006-01-02 15:04"), m.Sender, m.Line, inboxAction(string(m.Action)), m.SendID, m.Message}
	}
	return o.IO.table(o.IO.Out, []string{"RECEIVED", "FROM", "LINE", "DID", "LAST SEND", "MESSAGE"}, rows)
}

// inboxAction is what a reply did, in words.
func inboxAction(a string) string {
	switch a {
	case "opted_out":
		return "opted out"
	case "opted_in":
		return "opted back in"
	}
	return ""
}

// inboxFilterText says what an empty inbox was filtered by.
func inboxFilterText(o inboxOptions) string {
	s := ""
	if o.Line != "" {
		s += " to line " + model.SanitizeLine(o.Line)
	}
	if o.Since != "" {
		s += " since " + model.SanitizeLine(o.Since)
	}
	return s
}
