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

// GroupSource names a group's contacts; name may be empty.
func GroupSource(id model.ID, name string) Source {
	if name == "" {
		return Source{Name: "group " + model.SanitizeLine(id.String()), Row: "row"}
	}
	return Source{Name: fmt.Sprintf("group %s (%s)", model.SanitizeLine(name), model.SanitizeLine(id.String())), Row: "row"}
}

// ArgsSource names pairs given on the command line.
func ArgsSource() Source { return Source{Name: "--to/--message", Row: "pair"} }

// TypedSource names rows typed (or edited) in the console.
func TypedSource() Source { return Source{Name: "the composer", Row: "row"} }

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
	return "", &Refusal{Rule: RuleNoSender,
		Reason: fmt.Sprintf("no sender line: choose one for this send, or set one for profile %q (smsdesk config set sender LINE)", s.Profile.Name),
		Hint:   "on the command line: --sender LINE"}
}

// Plan builds a send plan from rows with the profile's number rules.
func (s *Session) Plan(sender string, rows []model.PairRow) *model.SendPlan {
	return model.BuildPlan(sender, rows, model.PlanOptions{Format: s.Profile.NumberFormat, AllowInternational: s.Profile.AllowInternational})
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
			Hint: fmt.Sprintf("fix it with smsdesk --profile %s config set …, or config unset it", p.Name)}
	}
	if p.RepeatWindow > 0 {
		facts.Since = facts.Now.Add(-p.RepeatWindow)
		hist, err := config.RecentPairs(s.Paths, p.Name, facts.Since)
		if err != nil {
			return facts, "", fmt.Errorf("checking earlier sends for repeats: %w; nothing was sent", err)
		}
		facts.History = hist
	}
	if s.Client != nil {
		facts.Credit, note = s.credit(ctx)
		// The pace the service announces (X-RateLimit-Limit, learned from
		// this answer or an earlier run's) times the send, not the profile's
		// guess: 150 requests at an announced 5/s take 30 s, not 2½ minutes.
		if st := s.Client.RateStatus(); st.Learned && st.PerMinute() > 0 {
			facts.RatePerMinute = st.PerMinute()
		}
	}
	return facts, note, nil
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

// Check applies the send rules to a plan. It refuses (*Refusal) rows that
// cannot be sent, plan-wide problems, and repeats unless allowRepeat; the
// verdict comes back either way, for the confirmation.
func (s *Session) Check(plan *model.SendPlan, facts model.SendFacts, src Source, allowRepeat bool) (model.Verdict, error) {
	v := model.CheckSend(plan, facts)
	s.nameOperators(v.Repeats)
	s.noteOverride(plan, v.Repeats)
	if r := refusal(plan, &v, facts, src, allowRepeat); r != nil {
		return v, r
	}
	return v, nil
}

func refusal(plan *model.SendPlan, v *model.Verdict, facts model.SendFacts, src Source, allowRepeat bool) *Refusal {
	if len(v.Bad) > 0 {
		return rowsRefusal(plan, v.Bad, src)
	}
	switch len(v.Problems) {
	case 0:
	case 1:
		rule := RulePlan
		if strings.HasPrefix(v.Problems[0], "not enough credit") {
			rule = RuleCredit
		}
		return &Refusal{Rule: rule, Reason: model.SanitizeLine(v.Problems[0]) + "; nothing was sent", Hint: problemHint(v.Problems[0], facts.Profile)}
	default:
		r := &Refusal{Rule: RulePlan, Reason: fmt.Sprintf("%d problems above; nothing was sent", len(v.Problems))}
		for _, p := range v.Problems {
			r.Details = append(r.Details, model.SanitizeLine(p))
		}
		return r
	}
	if len(v.Repeats) == 0 || allowRepeat {
		return nil
	}
	return repeatRefusal(plan, v, facts)
}

// repeatRefusal says which earlier sends took the plan's pairs: accepted,
// of unknown outcome, or in a send still running.
func repeatRefusal(plan *model.SendPlan, v *model.Verdict, facts model.SendFacts) *Refusal {
	r := &Refusal{Rule: RuleRepeat,
		Reason: fmt.Sprintf("%d of %d pairs were already accepted within the repeat window; nothing was sent (pass --allow-repeat to send them again, or set repeat_window)", v.RepeatedPairs(), len(plan.Items))}
	// Pairs whose outcome is unknown may have gone: a re-run (a cron job
	// retrying on failure) must not send them again without a word. Those
	// of a send still running are in flight: the way on is to let it end.
	maybe, from, running := 0, "", ""
	for _, rp := range v.Repeats {
		switch {
		case rp.Running && running == "":
			running = rp.SendID
		case !rp.Running && rp.Unknown > 0 && from == "":
			from = rp.SendID
		}
		if !rp.Running {
			maybe += rp.Unknown
		}
	}
	switch {
	case running != "":
		r.Reason = fmt.Sprintf("%d of %d pairs are in send %s, which is still running (here or in another smsdesk), or were accepted within the repeat window; nothing was sent",
			v.RepeatedPairs(), len(plan.Items), running)
		r.Hint = fmt.Sprintf("let send %s end (smsdesk history show %s); what it leaves not sent goes with smsdesk send-pair --resume %s; to send these pairs anyway: --allow-repeat", running, running, running)
	case maybe > 0:
		r.Reason = fmt.Sprintf("%d of %d pairs were already accepted or may already have gone (%d with an unknown outcome) within the repeat window; nothing was sent",
			v.RepeatedPairs(), len(plan.Items), maybe)
		r.Hint = fmt.Sprintf("check send %s (smsdesk history show %s); to send its unknown ones again: smsdesk send-pair --resume %s --include-unknown; to send these pairs anyway: --allow-repeat",
			from, from, from)
	}
	for _, rp := range v.Repeats {
		r.Details = append(r.Details, "repeat: "+model.SanitizeLine(rp.Problem(facts.Now)))
	}
	return r
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
	r := &Refusal{Rule: RuleRows, Reason: fmt.Sprintf("%d of %d rows in %s cannot be sent; nothing was sent (fix them and run again)", len(bad), len(plan.Items), src.Name)}
	for _, it := range bad {
		r.Details = append(r.Details, fmt.Sprintf("%s %s %d (%s): %s", src.Name, src.Row, it.Line, model.SanitizeLine(it.Input),
			model.SanitizeLine(strings.Join(it.Problems, "; "))))
	}
	return r
}

// problemHint says what to do about a plan-wide problem.
func problemHint(problem, profile string) string {
	switch {
	case strings.HasPrefix(problem, "sender "):
		return fmt.Sprintf("pass --sender with one of them (the console: s), or record the account's lines: smsdesk --profile %s config set senders LINE1,LINE2", profile)
	case strings.HasPrefix(problem, "not enough credit"):
		return "top up the account, then run the same command again"
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
