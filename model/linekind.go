package model

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Kinds of line (issue 42 §6). The service gives an account's lines a kind:
// an advertising line to MCI (Hamrah-e Aval) numbers is silent from 22:00
// to 07:00 Tehran time; a service line may send at any hour but carries
// «لغو۱۱». smsdesk keeps the kind the operator records (smsdesk lines set)
// and decides here what it adds to the profile's own rules for one send.
// A line with no kind keeps the profile's settings, as before.

// LineKind is a line's kind: LineService, LineAdvertising, or "" (none
// recorded: the profile's settings).
type LineKind string

// The kinds of line.
const (
	LineService     LineKind = "service"
	LineAdvertising LineKind = "advertising"
)

// LineKinds are the kinds a line may be given.
var LineKinds = []LineKind{LineService, LineAdvertising}

// ParseLineKind reads a kind as the operator writes it (service or
// advertising, any case).
func ParseLineKind(s string) (LineKind, error) {
	k := LineKind(strings.ToLower(strings.TrimSpace(s)))
	switch k {
	case LineService, LineAdvertising:
		return k, nil
	}
	return "", fmt.Errorf("%q is not a kind of line: choose service or advertising", SanitizeLine(s))
}

// MaxLineChars bounds a line's name: the service's lines are numbers of at
// most about 14 digits, or short names.
const MaxLineChars = 32

// CheckLine says what is wrong with a sender line as given, or nil: empty,
// spaces around it, a line break or control characters, or too long (the
// check a profile's sender and senders get).
func CheckLine(line string) error {
	switch {
	case strings.TrimSpace(line) == "":
		return fmt.Errorf("is empty: give the line, such as 3000505")
	case line != SanitizeLine(line) || strings.ContainsAny(line, "\n\r"):
		return fmt.Errorf("holds a line break or control characters")
	case strings.TrimSpace(line) != line:
		return fmt.Errorf("%q starts or ends with a space", line)
	case utf8.RuneCountInString(line) > MaxLineChars:
		return fmt.Errorf("is %d characters, over %d", utf8.RuneCountInString(line), MaxLineChars)
	}
	return nil
}

// ServiceSuffix is the suffix a service line's messages carry when the
// profile sets none (its own optout_suffix spelling otherwise).
const ServiceSuffix = "لغو۱۱"

// AdvertisingQuiet is an advertising line's quiet hours for MCI numbers,
// in AdvertisingZone, whatever the profile's timezone.
var AdvertisingQuiet = QuietHours{On: true, Start: 22 * 60, End: 7 * 60}

// AdvertisingZone is the zone AdvertisingQuiet is read in.
const AdvertisingZone = "Asia/Tehran"

// MCIBlocksText are MCI's number blocks, for people (see mobileBlocks).
const MCIBlocksText = "0910–0919, 0990–0994"

// IsMCI reports whether a number NormalizeMobile accepted is MCI's
// (Hamrah-e Aval): the blocks 0910–0919 and 0990–0994 of mobileBlocks'
// table. A foreign number is not.
func IsMCI(normalized string) bool {
	var block string
	switch {
	case strings.HasPrefix(normalized, "09") && len(normalized) >= 4:
		block = normalized[2:4]
	case strings.HasPrefix(normalized, "+989") && len(normalized) >= 6:
		block = normalized[4:6]
	default:
		return false
	}
	return block[0] == '1' || block[0] == '9' && block[1] >= '0' && block[1] <= '4'
}

// LineSuffix is the suffix a send's messages end with on a line of kind:
// the profile's (profileSuffix, "" for none), or for a service line the
// profile's spelling else ServiceSuffix. byKind: the kind gave it (the
// profile sets none).
func LineSuffix(kind LineKind, profileSuffix string) (suffix string, byKind bool) {
	if kind == LineService && profileSuffix == "" {
		return ServiceSuffix, true
	}
	return profileSuffix, false
}

// LineRules are what a send's line adds to the profile's rules, decided by
// DecideLineRules: every face shows them (Texts) and the send keeps them
// (Quiet).
type LineRules struct {
	Line string
	Kind LineKind
	// Quiet are the windows the send keeps: its line's (an advertising
	// line's, when the send has MCI recipients), then the profile's.
	Quiet QuietSet
	// MCI counts the send's recipients (not opted out) on MCI numbers, of
	// Recipients.
	MCI, Recipients int
	// Suffix ends every message ("" none); SuffixByKind: the service
	// line gave it; NoSuffix: the operator left it out (--no-suffix).
	Suffix       string
	SuffixByKind bool
	NoSuffix     bool
	// KindUnknown: the send has no account to look the kind up by (a dry
	// run offline): the profile's settings.
	KindUnknown bool
}

// LineFacts are what DecideLineRules weighs: the line and its kind, the
// profile's quiet hours (in its zone) and its suffix, and the operator's
// --no-suffix.
type LineFacts struct {
	Line          string
	Kind          LineKind
	KindUnknown   bool
	ProfileQuiet  QuietHours
	ProfileZone   *time.Location
	ProfileSuffix string
	NoSuffix      bool
}

// CountMCI counts plan's recipients (not opted out) and those on MCI
// numbers.
func CountMCI(plan *SendPlan) (mci, recipients int) {
	for i := range plan.Items {
		it := &plan.Items[i]
		if it.OptedOut || it.Recipient == "" {
			continue
		}
		recipients++
		if IsMCI(it.Recipient) {
			mci++
		}
	}
	return mci, recipients
}

// DecideLineRules decides what a send's line adds to the profile's rules,
// for a send to recipients numbers, mci of them MCI's: an advertising line
// keeps AdvertisingQuiet when any recipient is MCI's (the whole send
// waits: one send, one start, one hold), beside the profile's own quiet
// hours (both hold: the stricter union); a service line adds no quiet
// hours and ends every message with its suffix; no kind changes nothing.
func DecideLineRules(f LineFacts, mci, recipients int) LineRules {
	r := LineRules{Line: f.Line, Kind: f.Kind, NoSuffix: f.NoSuffix, KindUnknown: f.KindUnknown, MCI: mci, Recipients: recipients}
	if f.Kind == LineAdvertising && mci > 0 {
		tehran, _ := LoadTimezone(AdvertisingZone) // embedded: time/tzdata
		r.Quiet = append(r.Quiet, QuietRule{Hours: AdvertisingQuiet, Zone: tehran,
			Why: "advertising line " + SanitizeLine(f.Line) + " to MCI numbers"})
	}
	if f.ProfileQuiet.On {
		r.Quiet = append(r.Quiet, QuietRule{Hours: f.ProfileQuiet, Zone: f.ProfileZone})
	}
	if !f.NoSuffix {
		r.Suffix, r.SuffixByKind = LineSuffix(f.Kind, f.ProfileSuffix)
	}
	return r
}

// KindText says what kind adds to a profile's rules (whose suffix is
// profileSuffix), for a list of lines: "quiet hours 22:00–07:00
// Asia/Tehran for MCI numbers (0910–0919, 0990–0994)", "suffix «لغو۱۱», no
// quiet hours of its own", "the profile's settings".
func KindText(kind LineKind, profileSuffix string) string {
	switch kind {
	case LineAdvertising:
		return "quiet hours " + AdvertisingQuiet.Text() + " " + AdvertisingZone + " for MCI numbers (" + MCIBlocksText + ")"
	case LineService:
		s, _ := LineSuffix(kind, profileSuffix)
		return "suffix «" + SanitizeLine(s) + "», no quiet hours of its own"
	}
	return "the profile's settings"
}

// Texts are the rules that apply to the send, and why, for people: one
// line each, as the plan, the confirmation and --json say them.
func (r LineRules) Texts() []string {
	line := SanitizeLine(r.Line)
	var out []string
	switch {
	case r.KindUnknown:
		out = append(out, "line "+line+": its kind is not known without an account (smsdesk login): the profile's settings")
	case r.Kind == LineAdvertising && r.MCI > 0:
		out = append(out, fmt.Sprintf("advertising line %s: quiet hours %s %s for MCI numbers (%s of %s)",
			line, AdvertisingQuiet.Text(), AdvertisingZone, Thousands(int64(r.MCI)), Counted(r.Recipients, "recipient")))
	case r.Kind == LineAdvertising:
		out = append(out, fmt.Sprintf("advertising line %s: no MCI numbers (%s), so none of its quiet hours %s", line, MCIBlocksText, AdvertisingQuiet.Text()))
	case r.Kind == LineService:
		out = append(out, "service line "+line+": "+r.serviceSuffixText()+", no quiet hours of its own")
	default:
		out = append(out, "line "+line+" has no kind (smsdesk lines set): the profile's settings")
	}
	for _, q := range r.Quiet {
		if q.Why == "" {
			out = append(out, "the profile's "+q.Text()+" hold too")
		}
	}
	return out
}

// KindTexts are Texts when the line has a kind, else none: a plan or a
// confirmation says nothing new of a line with no kind (the profile's
// settings, as before); --json says it all (Texts).
func (r LineRules) KindTexts() []string {
	if r.Kind == "" {
		return nil
	}
	return r.Texts()
}

// serviceSuffixText says a service line's suffix: «لغو۱۱», whose spelling,
// or left out.
func (r LineRules) serviceSuffixText() string {
	switch {
	case r.NoSuffix:
		return "suffix left out (--no-suffix, recorded)"
	case r.SuffixByKind:
		return "suffix «" + SanitizeLine(r.Suffix) + "»"
	}
	return "suffix «" + SanitizeLine(r.Suffix) + "» (the profile's spelling)"
}
