package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// Source is where a plan's rows come from, and what one row is called in
// messages ("pairs.csv line 4", "group 12 row 7", "--to/--message pair 2"). A
// group's rows are numbered as contacts list prints them (and the dry run's
// LINE column): "contact 7" read as the id of another contact.
type Source struct {
	Name string
	Row  string
}

func (s Source) String() string { return s.Name }

// FileSource names rows read from a file (or "stdin").
func FileSource(name string) Source { return Source{Name: name, Row: "line"} }

// GroupSource names a group's contacts: "group Newsletter (4)", or "group
// 1" when name is empty or is that already (a group tracked by id alone).
func GroupSource(id model.ID, name string) Source {
	if name == "" || name == "group "+id.String() {
		return Source{Name: "group " + model.SanitizeLine(id.String()), Row: "row"}
	}
	return Source{Name: fmt.Sprintf("group %s (%s)", model.SanitizeLine(name), model.SanitizeLine(id.String())), Row: "row"}
}

// ArgsSource names pairs given on the command line.
func ArgsSource() Source { return Source{Name: "--to/--message", Row: "pair"} }

// TypedSource names rows typed (or edited) in the console.
func TypedSource() Source { return Source{Name: "the composer", Row: "row"} }

// ReplySource names a reply to one message of the inbox (its message id):
// a paired send of one, to the number that wrote, from the line it wrote
// to.
func ReplySource(messageID string) Source {
	return Source{Name: "reply to inbox message " + model.SanitizeLine(messageID), Row: "row"}
}

// CreditTimeout bounds the credit look-up before a send on every face; a
// slow answer only leaves the credit unknown.
const CreditTimeout = 10 * time.Second

// Sender is the line a send goes from: the one given, else the profile's.
func (s *Session) Sender(given string) (string, error) {
	if l := strings.TrimSpace(given); l != "" {
		return l, nil
	}
	if l := strings.TrimSpace(s.Profile.Sender); l != "" {
		return l, nil
	}
	return "", &Refusal{Rule: RuleNoSender, Profile: model.SanitizeLine(s.Profile.Name),
		Reason: fmt.Sprintf("no sender line: choose one for this send, or set one for profile %q", model.SanitizeLine(s.Profile.Name))}
}

// Plan builds a send plan from rows with the profile's number rules.
// Every message ends with the profile's opt-out suffix (PlanWith).
func (s *Session) Plan(sender string, rows []model.PairRow) *model.SendPlan {
	return s.PlanWith(sender, rows, false)
}

// ContactRows are a group's contacts as template rows, numbered in list
// order. Names are sanitised: a message gets them as they show.
func ContactRows(contacts []model.Contact) []model.ContactRow {
	rows := make([]model.ContactRow, len(contacts))
	for i, c := range contacts {
		rows[i] = model.ContactRow{Line: i + 1, Mobile: c.Mobile, Name: model.SanitizeLine(c.Name)}
	}
	return rows
}

// TemplateRows renders a template over contact rows; a variable that is not
// a column refuses, naming the row.
func TemplateRows(t *model.Template, rows []model.ContactRow, src Source) ([]model.PairRow, error) {
	pairs, err := model.PairsFromTemplate(t, rows)
	if err != nil {
		var ce *model.CSVError
		if errors.As(err, &ce) {
			err = fmt.Errorf("%s %s %d: %w", src.Name, src.Row, ce.Line, ce.Err)
		}
		return nil, &Refusal{Rule: RuleTemplate, Reason: model.SanitizeLine(err.Error()) + "; nothing was sent"}
	}
	return pairs, nil
}

// ParseTemplate reads a message template; a bad one refuses.
func ParseTemplate(text string) (*model.Template, error) {
	t, err := model.ParseTemplate(text)
	if err != nil {
		return nil, &Refusal{Rule: RuleTemplate, Reason: "template: " + model.SanitizeLine(err.Error())}
	}
	return t, nil
}

// ArgRows pairs recipients and messages given one by one, in order.
func ArgRows(to, message []string) []model.PairRow {
	rows := make([]model.PairRow, len(to))
	for i := range to {
		rows[i] = model.PairRow{Line: i + 1, Recipient: strings.TrimSpace(to[i]), Message: strings.TrimSpace(message[i])}
	}
	return rows
}

// GroupRows lists a group's contacts and renders the template over them.
func (s *Session) GroupRows(ctx context.Context, id model.ID, t *model.Template) ([]model.PairRow, Source, error) {
	src := GroupSource(id, "")
	contacts, err := s.Client.ListContacts(ctx, id, nil)
	if err != nil {
		return nil, src, fmt.Errorf("listing %s: %w; nothing was sent", src.Name, err)
	}
	rows, err := TemplateRows(t, ContactRows(contacts), src)
	return rows, src, err
}

// Facts gathers what the send rules weigh besides the plan: the profile's
// lines, prices and pace, this profile's recent sends, and the account's
// credit when the service tells it. note says why the credit is unknown
// ("" when known, or when the service has no credit endpoint).
func (s *Session) Facts(ctx context.Context) (facts model.SendFacts, note string, err error) {
	return s.facts(ctx, true, nil)
}

// lookFunc makes one look at the ledger: a runner's is bounded by its
// look wait (Runner.looking); nil looks as long as ctx lets it.
type lookFunc func(ctx context.Context, what string, look func(context.Context) error) error

// facts is Facts; askCredit false asks the service nothing (a send refused
// for quiet hours is refused before any request). look makes the look at
// the ledger for earlier sends (nil: under ctx alone).
func (s *Session) facts(ctx context.Context, askCredit bool, look lookFunc) (facts model.SendFacts, note string, err error) {
	if err := s.Allow(ActionSend); err != nil {
		return facts, "", err // a viewer gets no credit look-up either: nothing reaches the service
	}
	p := s.Profile
	facts = model.SendFacts{
		Profile: p.Name, Lines: model.KnownLines(p.Senders, p.Sender), Prices: p.Prices,
		RatePerMinute: firstPositive(p.RatePerMinute, config.DefaultRatePerMinute),
		ChunkSize:     firstPositive(p.ChunkSize, config.DefaultChunkSize), Now: s.now(),
	}
	if p.Invalid != nil {
		return facts, "", &Refusal{Rule: RuleSetting, Reason: model.SanitizeLine(p.Invalid.Error()) + "; nothing was sent",
			Profile: model.SanitizeLine(p.Name)}
	}
	if p.RepeatWindow > 0 {
		facts.Since = facts.Now.Add(-p.RepeatWindow)
		if look == nil {
			look = func(ctx context.Context, _ string, f func(context.Context) error) error { return f(ctx) }
		}
		err := look(ctx, lookRepeats, func(c context.Context) (err error) {
			facts.History, err = config.RecentPairs(c, s.Paths, s.repeatScope(), facts.Since)
			return err
		})
		var gaveUp *LookWaitError
		if err != nil && !errors.As(err, &gaveUp) { // a look that gave up says so itself
			err = notSent("checking earlier sends for repeats", err)
		}
		if err != nil {
			return facts, "", err
		}
	}
	if s.Client != nil && askCredit {
		facts.Credit, note = s.credit(ctx)
		facts.Pace = paceOf(s.Client.RateStatus(), facts.RatePerMinute)
	}
	return facts, note, nil
}

// paceOf is the pace a send will keep, as the client knows it: the
// service's limit and window (learned from this session's answers, the
// credit's included, or an earlier run's); its limit alone, with a window
// of at least a second (an announced 5 used to be read as 5 a minute: "about
// 60 min" for a send that took one); else the profile's rate.
func paceOf(st client.RateStatus, profileRate int) model.Pace {
	switch {
	case !st.Learned || st.Limit <= 0:
		return model.ProfilePace(profileRate)
	case st.WindowLearned && st.Window > 0:
		return model.Pace{Limit: st.Limit, Window: st.Window, From: model.PaceService}
	}
	return model.Pace{Limit: st.Limit, Window: time.Second, From: model.PaceLimit}
}

// credit asks the service for the account's credit: nil when it does not
// tell (404/405, quietly) or cannot now (note says why).
func (s *Session) credit(ctx context.Context) (*model.Credit, string) {
	cctx, cancel := context.WithTimeout(ctx, CreditTimeout)
	defer cancel()
	cr, err := s.Client.Credit(cctx)
	switch {
	case errors.Is(err, client.ErrNoCreditEndpoint):
		return nil, ""
	case err != nil:
		return nil, "the account's credit is unknown (" + model.SanitizeLine(err.Error()) + ")"
	}
	return &cr, ""
}

// CheckRows refuses a plan with rows that cannot be sent (bad, foreign or
// non-mobile numbers, empty messages, empty template fields), naming each
// by its source and line: the first rule, which needs no facts (a face may
// ask it before gathering them). Check applies it too.
func CheckRows(plan *model.SendPlan, src Source) error {
	if bad := plan.Invalid(); len(bad) > 0 {
		return rowsRefusal(plan, bad, src)
	}
	return nil
}

func rowsRefusal(plan *model.SendPlan, bad []model.PlanItem, src Source) *Refusal {
	r := &Refusal{Rule: RuleRows, Count: len(bad), Of: len(plan.Items), Source: src.Name,
		Reason: fmt.Sprintf("%d of %d rows in %s cannot be sent; nothing was sent (fix them and try again)", len(bad), len(plan.Items), src.Name)}
	for _, it := range bad {
		r.Details = append(r.Details, fmt.Sprintf("%s %s %d (%s): %s", src.Name, src.Row, it.Line, model.SanitizeLine(it.Input),
			model.SanitizeLine(strings.Join(it.Problems, "; "))))
	}
	return r
}

func firstPositive(vs ...int) int {
	for _, v := range vs {
		if v > 0 {
			return v
		}
	}
	return 0
}
