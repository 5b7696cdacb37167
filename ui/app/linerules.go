package app

// The rules of a send's line (issue 42 §6), decided here for every new
// send, resume and runner's start, on every face: the line's kind, as the
// ledger holds it for the account, adds to the profile's rules (model.
// DecideLineRules): an advertising line's quiet hours for MCI numbers, a
// service line's suffix. The send's session carries them (forLine); its
// quiet hours, hold and suffix read them (quietSet, suffix).

import (
	"context"
	"fmt"
	"strings"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// lookupLineKind is the kind recorded for line on the session's account;
// unknown when there is no account to look it up by (a dry run offline
// without a key: the profile's settings, said as such). A ledger that
// cannot be read refuses the send.
func (s *Session) lookupLineKind(ctx context.Context, line string) (kind model.LineKind, unknown bool, err error) {
	acct, err := s.account()
	if err != nil {
		return "", true, nil
	}
	k, err := config.LineKindOf(ctx, s.Paths, acct, line)
	if err != nil {
		return "", false, notSent("reading the kind of line "+model.SanitizeLine(line), err)
	}
	return k, false, nil
}

// lineFacts are what the line's rules weigh: its kind and the profile's
// quiet hours and suffix as s holds them.
func (s *Session) lineFacts(line string, kind model.LineKind, unknown, noSuffix bool) model.LineFacts {
	return model.LineFacts{Line: line, Kind: kind, KindUnknown: unknown, ProfileQuiet: s.Profile.Quiet,
		ProfileZone: s.Profile.Zone(), ProfileSuffix: s.Profile.Suffix, NoSuffix: noSuffix}
}

// forLine is s derived for one send from line (its kind read now), whose
// mci of recipients numbers are MCI's (0, 0 before it is planned: the kind
// decides the suffix, DecideLine the rest).
func (s *Session) forLine(ctx context.Context, line string, noSuffix bool, mci, recipients int) (*Session, error) {
	kind, unknown, err := s.lookupLineKind(ctx, line)
	if err != nil {
		return nil, err
	}
	d := s.withProfile(s.Profile)
	r := model.DecideLineRules(s.lineFacts(line, kind, unknown, noSuffix), mci, recipients)
	d.line = &r
	return d, nil
}

// decideLine decides s's line rules again for plan, its recipients known
// (an advertising line's quiet hours hold when any is MCI's).
func (s *Session) decideLine(plan *model.SendPlan) {
	if s.line == nil {
		return
	}
	mci, n := model.CountMCI(plan)
	r := model.DecideLineRules(s.lineFacts(s.line.Line, s.line.Kind, s.line.KindUnknown, plan.NoSuffix), mci, n)
	s.line = &r
}

// forJournal is s derived for a send continued from its journal (a
// resume, a runner's start): its line's rules for the items it may still
// send (not accepted, rejected or opted out).
func (s *Session) forJournal(ctx context.Context, st *model.JournalState) (*Session, error) {
	mci, n := 0, 0
	for _, it := range st.Items {
		switch {
		case it.OptedOut, it.State == model.StateAccepted, it.State == model.StateRejected, it.State == model.StateOptedOut:
			continue
		}
		n++
		if model.IsMCI(it.Recipient) {
			mci++
		}
	}
	return s.forLine(ctx, st.Plan.Sender, st.Plan.NoSuffix, mci, n)
}

// quietSet are the quiet windows s's send keeps: its line's rules', when
// decided (the line's, then the profile's), else the profile's.
func (s *Session) quietSet() model.QuietSet {
	if s.line != nil {
		return s.line.Quiet
	}
	if !s.Profile.Quiet.On {
		return nil
	}
	return model.QuietSet{{Hours: s.Profile.Quiet, Zone: s.Profile.Zone()}}
}

// quietText is quietSet for people and the records: "quiet hours
// 22:00–08:00 Asia/Tehran", each window, "; " between.
func (s *Session) quietText() string {
	var out []string
	for _, r := range s.quietSet() {
		out = append(out, r.Text())
	}
	return strings.Join(out, "; ")
}

// QuietText are the quiet windows p keeps (its line's and the profile's),
// for people: "advertising line 3000 to MCI numbers: quiet hours
// 22:00–07:00 Asia/Tehran; quiet hours 22:00–08:00 Asia/Tehran"; "" when
// none is on.
func (p *PendingSend) QuietText() string { return p.s.quietText() }

// suffix is what s's plans end every message with: a service line's
// «لغو۱۱» (the profile's spelling where set), else the profile's.
func (s *Session) suffix() string {
	if s.line != nil {
		sfx, _ := model.LineSuffix(s.line.Kind, s.Profile.Suffix)
		return sfx
	}
	return s.Profile.Suffix
}

// sameLineKind refuses p at its start when its line's kind is not, now,
// the one it was checked with (lines set while its question was open).
func (p *PendingSend) sameLineKind(ctx context.Context, nothing string) error {
	if p.Line.Line == "" || p.Line.KindUnknown {
		return nil
	}
	kind, _, err := p.s.lookupLineKind(ctx, p.Line.Line)
	if err != nil {
		return err
	}
	if kind == p.Line.Kind {
		return nil
	}
	change := fmt.Sprintf("the kind of line %s %s → %s", model.SanitizeLine(p.Line.Line), kindWord(p.Line.Kind), kindWord(kind))
	return &Refusal{Rule: RuleSettingsChanged, Profile: model.SanitizeLine(p.s.Profile.Name), Details: []string{"changed: " + change},
		Reason: fmt.Sprintf("%s changed while this send was being confirmed; %s", change, nothing)}
}
