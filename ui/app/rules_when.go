package app

// To whom and when (issue 29): the opt-out list, the profile's
// opt-out suffix and its quiet hours, decided here for every new send and
// every resume, on every face. A recipient on the list is left out of the
// plan (journaled as opted out, never sent); a send that would start inside
// quiet hours is refused before any request; a send that reaches their
// start is held there by the engine (dispatch.Options.Hold), the rest
// resumable. --ignore-quiet-hours is the operator's say, recorded.

import (
	"context"
	"fmt"
	"time"

	"github.com/smsdesk/smsdesk/client/dispatch"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// ActionIgnoreQuietHours is sending through quiet hours on purpose: an
// admin's say on a served console.
const ActionIgnoreQuietHours Action = "sending in quiet hours"

// OptedOutShown is how many opted-out recipients a plan names.
const OptedOutShown = 3

// PlanWith builds a send plan from rows with the profile's number rules, each
// message ending with the profile's opt-out suffix on its own line unless
// noSuffix (--no-suffix: the journal records it). The suffix is part of the
// text: counted in the parts and the 600-character limit.
func (s *Session) PlanWith(sender string, rows []model.PairRow, noSuffix bool) *model.SendPlan {
	b := s.NewPlan(sender, noSuffix, len(rows))
	for _, r := range rows {
		b.Add(r)
	}
	return b.Plan()
}

// SuffixText is a send's suffix for people, in every face's preview: "every
// message ends with the line لغو۱۱ (counted in its parts; the suffix is
// Persian: every message goes as UCS-2)". A suffix outside GSM-7 makes
// every message UCS-2 (70 characters in one part, 67 a part in more), so
// a Latin text counted without it read one part where it went in two.
func SuffixText(suffix string) string {
	s := "every message ends with the line " + model.SanitizeLine(suffix) + " (counted in its parts"
	if why := model.SuffixEncodingText(suffix); why != "" {
		s += "; " + why + ": every message goes as UCS-2"
	}
	return s + ")"
}

// PlanBuilder is PlanWith a row at a time, for rows read as they come: a
// file of a million pairs is held once, as the plan, not as rows, then as
// rows with the suffix, then as the plan.
type PlanBuilder struct {
	b        *model.PlanBuilder
	suffix   string
	noSuffix bool
}

// NewPlan starts a plan as PlanWith makes it; sizeHint is how many rows are
// expected (0 if unknown).
func (s *Session) NewPlan(sender string, noSuffix bool, sizeHint int) *PlanBuilder {
	return s.Profile.newPlan(sender, s.suffix(), noSuffix, sizeHint)
}

// PlanIn is Plan under rules, the profile's rules as a face last read
// them (ReadRules) rather than as the session opened with them: the
// composer plans as the send will be planned at its question (PrepareSend
// plans again under the rules as they are then).
func (s *Session) PlanIn(rules Profile, sender string, rows []model.PairRow) *model.SendPlan {
	b := rules.newPlan(sender, rules.Suffix, false, len(rows))
	for _, r := range rows {
		b.Add(r)
	}
	return b.Plan()
}

// newPlan starts a plan under p's number rules, its messages ending with
// suffix (the profile's, or its line's: Session.suffix).
func (p Profile) newPlan(sender, suffix string, noSuffix bool, sizeHint int) *PlanBuilder {
	return &PlanBuilder{b: model.NewPlanBuilder(sender, model.PlanOptions{Format: p.NumberFormat, AllowInternational: p.AllowInternational}, sizeHint),
		suffix: suffix, noSuffix: noSuffix}
}

// Add adds a row, its message with the profile's suffix.
func (pb *PlanBuilder) Add(r model.PairRow) {
	if pb.suffix != "" && !pb.noSuffix {
		r.Message = model.WithSuffix(r.Message, pb.suffix)
	}
	pb.b.Add(r)
}

// Plan is the plan of the rows added.
func (pb *PlanBuilder) Plan() *model.SendPlan {
	p := pb.b.Plan()
	switch {
	case pb.suffix == "":
	case pb.noSuffix:
		p.NoSuffix = true
	default:
		p.Suffix = pb.suffix
	}
	return p
}

// quietNow is the quiet window now is inside, else nil: the send's line's
// (an advertising line's to MCI numbers) or the profile's (quietSet),
// ending when now is inside neither.
func (s *Session) quietNow(now time.Time) *QuietWindow {
	set := s.quietSet()
	r, in := set.Inside(now)
	if !in {
		return nil
	}
	return &QuietWindow{Hours: r.Hours, Zone: r.Zone, Why: r.Why, Start: r.StartedAt(now), Until: set.AllowedFrom(now)}
}

// quietNow is p's quiet window when now is inside it, else nil.
func (p Profile) quietNow(now time.Time) *QuietWindow {
	q, loc := p.Quiet, p.Zone()
	if !q.Contains(now, loc) {
		return nil
	}
	start := q.NextStart(now.Add(-24*time.Hour), loc) // the start of the window now open
	if start.After(now) {
		start = now
	}
	return &QuietWindow{Hours: q, Zone: loc, Start: start, Until: q.AllowedFrom(now, loc)}
}

// quietRefusal refuses a send (or, with id, a resume) that would start
// inside quiet hours: before any request.
func quietRefusal(w *QuietWindow, now time.Time, id string) *Refusal {
	what := "nothing was sent"
	if id != "" {
		what = "send " + model.SanitizeLine(id) + " was not resumed"
	}
	return &Refusal{Rule: RuleQuietHours, Quiet: w, SendID: model.SanitizeLine(id),
		Reason: fmt.Sprintf("%s; sending may start at %s; %s", w.Text(), w.UntilText(now), what)}
}

// allowQuiet checks the operator may send through quiet hours (admin on a
// served console) when they ask to.
func (s *Session) allowQuiet(ignore bool) error {
	if !ignore {
		return nil
	}
	return s.Allow(ActionIgnoreQuietHours)
}

// QuietForecast is a plan's warning that its estimate reaches the start of
// quiet hours: about Held of its recipients would wait until Window.Until.
type QuietForecast struct {
	Window QuietWindow
	Held   int
}

// Text is the warning for people: "quiet hours start at 22:00: about 1,200
// would wait until 08:00", after the line's kind when the window is its
// ("advertising line 3000 to MCI numbers: quiet hours start at 22:00: …").
func (f *QuietForecast) Text(now time.Time) string {
	why := ""
	if f.Window.Why != "" {
		why = f.Window.Why + ": "
	}
	return fmt.Sprintf("%squiet hours start at %s: about %s would wait until %s",
		why, f.Window.StartText(now), model.Thousands(int64(f.Held)), f.Window.UntilText(now))
}

// forecast is the quiet-hours warning for a plan starting at now, or nil.
func (s *Session) forecast(sum model.PlanSummary, chunk int, now time.Time) *QuietForecast {
	set := s.quietSet()
	// The longest the estimate allows: a window not yet known is the
	// documented minute here, where the plan's time says "at least".
	start, r, reaches := set.Reaches(now, sum.Longest)
	if !reaches || sum.Recipients == 0 {
		return nil
	}
	held := model.HeldAtQuiet(now, start, sum.Recipients, chunk, sum.Requests, sum.Longest)
	if held == 0 {
		return nil
	}
	return &QuietForecast{Window: QuietWindow{Hours: r.Hours, Zone: r.Zone, Why: r.Why, Start: start, Until: set.AllowedFrom(start)}, Held: held}
}

// optOuts is the opt-out list's entries for recipients, looked up by
// number (never the whole list: it may hold millions): nil (no list)
// without a client (a dry run offline cannot name the account).
func (s *Session) optOuts(ctx context.Context, recipients []string) (*model.OptOutList, error) {
	if _, err := s.account(); err != nil {
		return nil, nil
	}
	l, err := config.LookupOptOuts(ctx, s.Paths, recipients)
	if err != nil {
		return nil, notSent("reading the opt-out list", err)
	}
	return l, nil
}

// markOptedOut marks the plan's recipients on the opt-out list
// for its line (MarkOptedOut), the list read now.
func (s *Session) markOptedOut(ctx context.Context, plan *model.SendPlan) (*model.SendPlan, []model.PlanItem, error) {
	recipients := make([]string, 0, len(plan.Items))
	for _, it := range plan.Items {
		if it.Recipient != "" && !it.OptedOut {
			recipients = append(recipients, it.Recipient)
		}
	}
	l, err := s.optOuts(ctx, recipients)
	if err != nil || l == nil {
		return plan, nil, err
	}
	plan, marked := MarkOptedOut(plan, l)
	return plan, marked, nil
}

// MarkOptedOut marks the plan's recipients on opt-out list l for its line
// and returns the plan so marked, with those items: the rule a send's
// confirmation counts by (PrepareSend, and again as it starts), for a face
// that shows a plan before it is checked (the console's composer, with the
// list it read off its UI loop). A marked item is never sent, counted or
// billed (model.SendPlan.Recipients, TotalParts). It never writes the plan
// it is given, which a face may be drawing meanwhile (the console checks in
// a Cmd; the race detector caught the two meeting): the marks go on a copy,
// made only when someone is to be marked. A plan with no one new on the
// list (most sends) is returned as it is: copying every plan cost a 1M-row
// dry run 145 MB. A nil l marks no one new.
func MarkOptedOut(plan *model.SendPlan, l *model.OptOutList) (*model.SendPlan, []model.PlanItem) {
	var marked []model.PlanItem
	for i := range plan.Items {
		it := &plan.Items[i]
		if it.OptedOut {
			marked = append(marked, *it)
			continue
		}
		if l == nil || it.Recipient == "" {
			continue
		}
		if _, blocked := l.Blocks(it.Recipient, plan.Sender); blocked {
			plan = plan.Clone()
			return plan, model.MarkOptedOut(plan, l)
		}
	}
	return plan, marked
}

// allOptedOut refuses a plan every recipient of which is on the list.
func allOptedOut(plan *model.SendPlan) *Refusal {
	n := len(plan.OptedOutRecipients())
	if n == 0 || n < len(plan.Items) {
		return nil
	}
	r := &Refusal{Rule: RuleOptedOut, Count: n, Of: len(plan.Items),
		Reason: fmt.Sprintf("every recipient (%s) is on the opt-out list; nothing was sent", model.Thousands(int64(n)))}
	r.Details = append(r.Details, model.OptedOutCount(plan.OptedOutRecipients(), OptedOutShown))
	return r
}

// resumeOptedOut are the indexes of todo (of send st) whose recipients are
// on the opt-out list for the send's line now.
func (s *Session) resumeOptedOut(ctx context.Context, st *model.JournalState, todo []int) ([]int, error) {
	recipients := make([]string, 0, len(todo))
	for _, ix := range todo {
		if it, ok := st.Item(ix); ok {
			recipients = append(recipients, it.Recipient)
		}
	}
	l, err := s.optOuts(ctx, recipients)
	if err != nil || l == nil {
		return nil, err
	}
	var out []int
	for _, ix := range todo {
		if it, ok := st.Item(ix); ok {
			if _, blocked := l.Blocks(it.Recipient, st.Plan.Sender); blocked {
				out = append(out, ix)
			}
		}
	}
	return out, nil
}

// holdAtQuiet is the engine's Hold for the send's quiet hours (its line's
// and the profile's: quietSet): from their start no chunk starts, and the
// rest waits for their end.
func (s *Session) holdAtQuiet() func(now time.Time) (string, time.Time, bool) {
	if !s.quietSet().On() {
		return nil
	}
	return func(now time.Time) (string, time.Time, bool) {
		w := s.quietNow(now)
		if w == nil {
			return "", time.Time{}, false
		}
		return fmt.Sprintf("%s began at %s; the rest is held, not sent, until %s", w.Text(),
			model.ClockText(w.Start, now, w.Zone), w.UntilText(now)), w.Until, true
	}
}

// whenOptions puts the rules' part in a run's options: the hold at quiet
// hours, unless the operator ignores them (which the run's first record
// says: planRecord, startRecord).
func (s *Session) whenOptions(o *dispatch.Options, ignoreQuiet bool) {
	set := s.quietSet()
	if !set.On() || ignoreQuiet {
		return
	}
	o.Hold = s.holdAtQuiet()
	o.HoldFrom = func(now time.Time) time.Time { start, _, _ := set.NextStart(now); return start }
}

// auditQuiet records a send made through quiet hours on purpose, with the
// operator (at a local terminal too).
func (s *Session) auditQuiet(ctx context.Context, id string, resume bool) {
	action := "ignore_quiet_hours"
	if resume {
		action = "ignore_quiet_hours_resume"
	}
	r := config.AuditRecord{Action: action, Send: id, Note: s.quietText(), Time: s.now().UTC()}
	if s.Operator != nil {
		op := *s.Operator
		r.Operator = &op
	}
	s.appendAudit(ctx, r) // the journal records it too
}

// QuietSoon is the profile's quiet window when now is inside it, or when it
// begins within an hour (a face's status line says so); nil otherwise.
func (s *Session) QuietSoon(now time.Time) *QuietWindow { return s.Profile.QuietSoon(now) }

// QuietSoon is p's quiet window when now is inside it, or when it begins
// within an hour; nil otherwise. A face that shows the rules as they are
// now asks it of the rules it last read (ReadRules).
func (p Profile) QuietSoon(now time.Time) *QuietWindow {
	if w := p.quietNow(now); w != nil {
		return w
	}
	q, loc := p.Quiet, p.Zone()
	if !q.On {
		return nil
	}
	start := q.NextStart(now, loc)
	if start.Sub(now) > time.Hour {
		return nil
	}
	return &QuietWindow{Hours: q, Zone: loc, Start: start, Until: q.AllowedFrom(start, loc)}
}

// leaveOutOptedOut is the engine's look before each chunk
// (dispatch.Options.LeaveOut): the items whose recipients are on the
// opt-out list for line now, read by number (a reply «۱۱» filed while the
// send runs leaves its number out from the next chunk). A list that cannot
// be read is an error: the run stops rather than send to a number it
// cannot check.
func (s *Session) leaveOutOptedOut(ctx context.Context, line string, items []model.JournalItem) ([]int, error) {
	recipients := make([]string, 0, len(items))
	for _, it := range items {
		recipients = append(recipients, it.Recipient)
	}
	l, err := s.optOuts(ctx, recipients)
	if err != nil || l == nil {
		return nil, err
	}
	var out []int
	for _, it := range items {
		if _, blocked := l.Blocks(it.Recipient, line); blocked {
			out = append(out, it.Index)
		}
	}
	return out, nil
}
