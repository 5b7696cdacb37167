package app

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// ActionLineKind is recording or clearing a line's kind: it changes the
// rules of every send from that line, of every operator (admin).
const ActionLineKind Action = "setting a line's kind"

// RuleLine names a line given that cannot be one (Name: as given; Reason
// names the field).
const RuleLine Rule = "line"

// Line is one of the profile's lines as `smsdesk lines` lists it: the
// senders the profile knows (its default, its list of senders, those its
// sends went from) and every line with a recorded kind, with the rules the
// kind adds.
type Line struct {
	Line string
	Kind model.LineKind // "" none recorded
	// Default: the profile's sender; Listed: among its senders; Sent: a
	// send of the profile went from it.
	Default, Listed, Sent bool
	// SetAt is when the kind was recorded (the profile's zone), SetBy by
	// whom ("" at a local terminal).
	SetAt time.Time
	SetBy string
	// Rules is what the kind adds to the profile's rules, in words
	// (model.KindText).
	Rules string
}

// Lines are the profile's lines with their kinds, by line.
func (s *Session) Lines(ctx context.Context) ([]Line, error) {
	acct, err := s.account()
	if err != nil {
		return nil, err
	}
	kinds, err := config.LineKinds(ctx, s.Paths, acct)
	if err != nil {
		return nil, err
	}
	sent, err := config.SendLines(ctx, s.Paths, acct, s.Profile.Name)
	if err != nil {
		return nil, err
	}
	byLine := map[string]*Line{}
	at := func(line string) *Line {
		if byLine[line] == nil {
			byLine[line] = &Line{Line: model.SanitizeLine(line)}
		}
		return byLine[line]
	}
	if d := s.Profile.Sender; d != "" {
		at(d).Default = true
	}
	for _, l := range s.Profile.Senders {
		at(l).Listed = true
	}
	for _, l := range sent {
		at(l).Sent = true
	}
	for _, k := range kinds {
		l := at(k.Line)
		l.Kind, l.SetAt, l.SetBy = k.Kind, k.SetAt.In(s.Profile.Zone()), operatorName(k.Operator)
	}
	out := make([]Line, 0, len(byLine))
	for _, k := range slices.Sorted(maps.Keys(byLine)) {
		l := byLine[k]
		l.Rules = model.KindText(l.Kind, s.Profile.Suffix)
		out = append(out, *l)
	}
	return out, nil
}

// operatorName is the name in a stored operator's JSON ("" for none, or
// for what does not read).
func operatorName(js string) string {
	var op model.Operator
	if js == "" || json.Unmarshal([]byte(js), &op) != nil {
		return ""
	}
	return model.SanitizeLine(op.Name)
}

// CheckLineArg refuses a line as given (RuleLine, naming the field): what
// model.CheckLine says of it.
func CheckLineArg(field, line string) error {
	if err := model.CheckLine(line); err != nil {
		return &Refusal{Rule: RuleLine, Name: model.SanitizeLine(line), Reason: field + " " + err.Error()}
	}
	return nil
}

// SetLineKind records line's kind on the account (kind "": clears it),
// with the operator, audited in the same transaction (line_kind, or
// line_kind_unset, its note the kind it had). It returns the kind the
// line had. Every send from the line prepared from now on keeps its rules;
// one whose question is open is refused as it starts
// (RuleSettingsChanged).
func (s *Session) SetLineKind(ctx context.Context, line string, kind model.LineKind) (was model.LineKind, err error) {
	if err := s.Allow(ActionLineKind); err != nil {
		return "", err
	}
	if err := CheckLineArg("line", line); err != nil {
		return "", err
	}
	acct, err := s.account()
	if err != nil {
		return "", err
	}
	now := s.now().UTC()
	op := s.Current()
	audit := func(was model.LineKind) config.AuditRecord {
		r := config.AuditRecord{Time: now, Profile: s.Profile.Name, Operator: op, Action: "line_kind", Sender: line,
			Note: fmt.Sprintf("kind %s (was %s)", kindWord(kind), kindWord(was))}
		if kind == "" {
			r.Action = "line_kind_unset"
		}
		return r
	}
	return config.SetLineKind(ctx, s.Paths, config.LineKindChange{Account: acct, Line: line, Kind: kind, At: now, Operator: op}, audit)
}

// kindWord is a kind for people: "none" when no kind.
func kindWord(k model.LineKind) string {
	if k == "" {
		return "none"
	}
	return string(k)
}

// LineKindsNow is the kind recorded for each of the account's lines, by
// line (a line with none is absent): what a face plans a draft with, as a
// send will (a service line's suffix). It reads the ledger: call it off a
// UI loop.
func (s *Session) LineKindsNow(ctx context.Context) (map[string]model.LineKind, error) {
	acct, err := s.account()
	if err != nil {
		return nil, err
	}
	kinds, err := config.LineKinds(ctx, s.Paths, acct)
	if err != nil {
		return nil, err
	}
	out := make(map[string]model.LineKind, len(kinds))
	for _, k := range kinds {
		out[k.Line] = k.Kind
	}
	return out, nil
}

// ForLineKind is p as a send from a line of kind plans its messages: a
// service line's suffix «لغو۱۱» where the profile sets none (its quiet
// hours are decided when the send is prepared).
func (p Profile) ForLineKind(kind model.LineKind) Profile {
	p.Suffix, _ = model.LineSuffix(kind, p.Suffix)
	return p
}
