// Package apptest holds the application layer's rules as a table both
// faces' tests run through (ui/cli and ui/console): each case puts a
// profile, a service and a pairs file (or a past send, a new group, a new
// contact) in a state one rule refuses, and says the words both faces must
// show. Only tests import it.
package apptest

import (
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// PairsFile is the name every case's pairs file has.
const PairsFile = "pairs.csv"

// PastSendID is the id of the send a resume case journals.
const PastSendID = "20250301-093000-feedbe"

// RuleCase is one send rule in a state that refuses.
type RuleCase struct {
	Name    string
	Rule    app.Rule
	Sandbox sandbox.Options
	// Profile is the profile's settings, as the config file would hold them
	// (the profile is called "test"; the sender is sandbox.DefaultSender).
	Profile config.Profile
	// Pairs is the pairs file (header and rows); empty for a resume case
	// and a group case.
	Pairs string
	// Group and Template make a group case: the template over the seeded
	// sandbox's group (Sandbox.Seed), as send-pair --group --template and
	// the console's composer send it.
	Group    model.ID
	Template string
	// Row, when set, is what both faces show of the first bad row (the CLI
	// in the refusal's details, the console in the row's PROBLEMS cell).
	Row string
	// Past writes a send journaled under another profile or service; a
	// resume of PastSendID is then refused. Nil for a send case.
	Past func(t testing.TB, paths config.Paths, baseURL string)
	// Repeat: the pairs were sent once before the refused attempt; by the
	// profile RepeatProfile of the same account (the same service and key,
	// its base URL spelled another way) when set, else by this one.
	Repeat        bool
	RepeatProfile string
	// OptOut are numbers put on the account's opt-out list (every line)
	// before the attempt.
	OptOut []string
	// NewGroup makes a group case: creating a group of that name, as
	// smsdesk groups create and the console's n on the groups do, when the
	// profile knows the groups Known (tracked by id and name, as smsdesk
	// groups track --name and the console's t remember them).
	NewGroup string
	Known    []model.Group
	// NewContact makes a contact case: adding it to group 1, as smsdesk
	// contacts add and the console's n on the contacts do.
	NewContact *model.Contact
	// Want is the start of the refusal's reason (or the whole of a
	// contact's problem), as both faces show it.
	Want string
	// CLIHint and ConsoleHint are part of what each face says to do about
	// it, in its own words (the CLI's flags and commands, the console's
	// keys); "" when the case does not check one.
	CLIHint, ConsoleHint string
}

var little = int64(1)

// QuietAround is a quiet window around now in Asia/Tehran (an hour either
// side: a case takes seconds), and what a refusal says of it. The CLI's
// case reads the wall clock; a face whose session has a clock of its own
// makes the window around that clock's now.
func QuietAround(now time.Time) (window, want string) {
	loc, _ := model.LoadTimezone("")
	now = now.In(loc)
	from, to := now.Add(-time.Hour), now.Add(time.Hour)
	return from.Format("15:04") + "-" + to.Format("15:04"),
		"quiet hours " + from.Format("15:04") + "–" + to.Format("15:04") + " Asia/Tehran; sending may start at " + to.Format("15:04")
}

// Cases are the rules every face must refuse the same way.
func Cases() []RuleCase {
	pairs := "mobile,message\n09121110001,Your code is 4821\n09351110002,سلام سارا\n"
	window, quietWant := QuietAround(time.Now())
	return []RuleCase{
		{Name: "quiet hours", Rule: app.RuleQuietHours, Profile: config.Profile{QuietHours: window}, Pairs: pairs, Want: quietWant,
			CLIHint: "run the same command again from then (or schedule it: --at ", ConsoleHint: "→ t sends"},
		{Name: "every recipient opted out", Rule: app.RuleOptedOut, Pairs: pairs, OptOut: []string{"+989121110001", "۰۹۳۵۱۱۱۰۰۰۲"},
			Want: "every recipient (2) is on the opt-out list; nothing was sent", CLIHint: "smsdesk optout list shows the list; smsdesk optout remove NUMBER", ConsoleHint: "o on a contact takes it off the opt-out list"},
		{Name: "foreign number", Rule: app.RuleRows, Pairs: "mobile,message\n09121110001,hi\n+14155550100,hello\n",
			Want: "1 of 2 rows in pairs.csv cannot be sent; nothing was sent"},
		{Name: "bad setting", Rule: app.RuleSetting, Profile: config.Profile{RepeatWindow: "banana"}, Pairs: pairs,
			// The CLI reads the setting when it opens the config, and says
			// how to fix the file there.
			Want: `repeat_window: "banana" is not a duration`, ConsoleHint: "(or config unset it), then ctrl+s again"},
		{Name: "credit short", Rule: app.RuleCredit, Sandbox: sandbox.Options{Credit: &little}, Pairs: pairs,
			Want:    "not enough credit: the send needs 2 parts, the account has 1",
			CLIHint: "top up the account, then run the same command again", ConsoleHint: "top up the account, then ctrl+s again"},
		// The seed's VIP group (3) has a contact without a name: "{name}"
		// would leave its message "Hi " with no fallback.
		{Name: "empty template fields", Rule: app.RuleRows, Sandbox: sandbox.Options{Seed: true}, Group: "3", Template: "Hi {name}",
			Want: "1 of 4 rows in group ", Row: "empty {name}"},
		{Name: "repeat", Rule: app.RuleRepeat, Pairs: pairs, Repeat: true,
			Want:    "2 of 2 pairs were already accepted within the repeat window",
			CLIHint: "pass --allow-repeat to send them again", ConsoleHint: "y alone does not; the default is No."},
		{Name: "repeat from another profile of the account", Rule: app.RuleRepeat, Pairs: pairs, Repeat: true, RepeatProfile: "work",
			Want:    "2 of 2 pairs were already accepted within the repeat window",
			CLIHint: "pass --allow-repeat to send them again", ConsoleHint: "y alone does not; the default is No."},
		{Name: "resume under another profile", Rule: app.RuleProfile,
			Past:    func(t testing.TB, paths config.Paths, baseURL string) { WriteInterrupted(t, paths, "live", baseURL) },
			Want:    `send ` + PastSendID + ` was made with profile "live", not "test": resume it under profile live`,
			CLIHint: "smsdesk --profile live send-pair --resume " + PastSendID, ConsoleHint: "start the console under that profile: smsdesk --profile live"},
		{Name: "resume against another service", Rule: app.RuleBaseURL,
			Past: func(t testing.TB, paths config.Paths, baseURL string) {
				WriteInterrupted(t, paths, "test", "https://sms.example.com/api/v1")
			},
			Want:    "send " + PastSendID + " went to https://sms.example.com/api/v1, but this profile uses ",
			CLIHint: "smsdesk --base-url https://sms.example.com/api/v1 send-pair --resume " + PastSendID, ConsoleHint: "smsdesk --base-url https://sms.example.com/api/v1"},
		// Changes to the service: refused before any request.
		{Name: "a group's name a known group has", Rule: app.RuleDuplicate, NewGroup: "vip", Known: []model.Group{{ID: "3", Name: "VIP"}},
			Want:    `profile test already calls group 3 "VIP" (its name on the service is not known to smsdesk); nothing was created`,
			CLIHint: `the service cannot list groups, so a second "vip" would be made without a word: to create it anyway, pass --allow-duplicate`, ConsoleHint: "y creates it all the same; the default is No."},
		{Name: "a contact's number", Rule: app.RuleContact, NewContact: &model.Contact{Mobile: "0912-abc"},
			Want: `mobile "0912-abc": contains the letter 'a': a number has only digits`},
		{Name: "a contact's name over the service's limit", Rule: app.RuleContact,
			NewContact: &model.Contact{Mobile: "09121110009", Name: strings.Repeat("ن", model.MaxContactName+1)},
			Want:       "name is 256 characters; the service takes at most 255"},
	}
}

// WriteInterrupted journals send PastSendID of profile to baseURL,
// interrupted: one chunk accepted, one never sent (so a resume would have
// something to send).
func WriteInterrupted(t testing.TB, paths config.Paths, profile, baseURL string) {
	t.Helper()
	j, err := config.CreateJournal(t.Context(), paths, PastSendID)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 3, 1, 9, 30, 0, 0, time.UTC)
	plan := &model.JournalPlan{ID: PastSendID, Time: at, Profile: profile, BaseURL: baseURL, Sender: sandbox.DefaultSender, Source: PairsFile, ChunkSize: 1,
		Items: []model.JournalItem{{Index: 0, Recipient: "09121110001", Message: "hi", Parts: 1}, {Index: 1, Recipient: "09121110002", Message: "hi", Parts: 1}}}
	for _, r := range []model.JournalRecord{plan,
		&model.JournalIntent{Time: at, Chunk: 0, Indexes: []int{0}, Key: PastSendID + "-0"},
		&model.JournalOutcome{Time: at, Chunk: 0, Results: []model.JournalResult{{Index: 0, State: model.StateAccepted, MessageID: "m-1"}}},
		&model.JournalEnd{Time: at, Interrupted: true},
	} {
		if err := j.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}
