package app

import "github.com/smsdesk/smsdesk/model"

// The journal records a send begins with are built here and handed to the
// engine (dispatch.Options.Plan, Options.Resume), which writes them as
// given, adding only what it alone knows: the send's id, sender line and
// items, the chunk size it sends by, the items a run sends, and the time.
// A new field of either record is set here, and nowhere else.

// planRecord is p's plan record: the profile, the source and the service
// it was checked against, who made it, the rules it goes under (the suffix,
// quiet hours ignored on purpose, repeats the operator allowed) and, for a
// scheduled send, its time.
func (p *PendingSend) planRecord() *model.JournalPlan {
	s := p.s
	rec := &model.JournalPlan{Profile: s.Profile.Name, Source: p.Source.Name, BaseURL: s.Profile.BaseURL,
		Account: s.accountID(), Operator: s.operatorRecord(), ScheduledFor: p.At}
	if p.Plan != nil {
		rec.Suffix, rec.NoSuffix = p.Plan.Suffix, p.Plan.NoSuffix
	}
	rec.IgnoreQuietHours, rec.QuietHours = s.ignoredQuiet(p.IgnoreQuietHours)
	if p.taken != nil {
		rec.ResendOf = p.taken.counts.Of
	}
	if p.AllowRepeat {
		for _, r := range p.Verdict.Repeats { // the repeats sent by the operator's choice
			rec.RepeatOf = append(rec.RepeatOf, r.SendID)
		}
	}
	return rec
}

// startRecord is the record a later run of a send begins with (an
// operator's resume, a runner's start of a scheduled or held send): who
// started it (the operator, or runner with no operator at hand) and
// whether it goes on through quiet hours on purpose.
func (s *Session) startRecord(ignoreQuiet bool, runner string) *model.JournalResume {
	ignored, _ := s.ignoredQuiet(ignoreQuiet)
	return &model.JournalResume{Operator: s.operatorRecord(), IgnoreQuietHours: ignored, Runner: runner}
}

// ignoredQuiet says whether a run goes through the profile's quiet hours
// on purpose (asked to, and the profile has them), naming the window as it
// stands.
func (s *Session) ignoredQuiet(ignore bool) (ignored bool, window string) {
	if !ignore || !s.quietSet().On() {
		return false, ""
	}
	return true, s.quietText()
}
