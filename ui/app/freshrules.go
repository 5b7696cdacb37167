package app

// The profile's rules are read as they stand now, for every plan and every
// start (issue 35): a running smsdesk serve, smsdesk scheduler or console
// lives for days, and `smsdesk config set quiet_hours …` on the host must
// count from the next send, as it does for the host's own CLI. Every
// PrepareSend, every Start (of a new send, a resume, a scheduled send by a
// runner) reads the config file again (a stat and a parse of a few hundred
// bytes); one that cannot be read refuses the send naming the file, never
// falling back on the rules read earlier or on none.

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// RuleSettingsChanged names a refusal at the start of a send whose
// profile's settings changed while its question was open: the operator
// said yes to rules that no longer hold (Profile, Details: what changed).
const RuleSettingsChanged Rule = "settings_changed"

// ProfileSettings reads profile name's settings from the config file of
// paths as it is now: what Engine.Settings (and Session.Settings) want. A
// file that is not there holds no profile: "default" then has the
// defaults (as config.Config.Resolve gives them), any other name is
// refused, as is a file that cannot be read or parsed (the error names
// it).
func ProfileSettings(paths config.Paths, name string) func() (*config.Profile, error) {
	return func() (*config.Profile, error) {
		cfg, err := config.Load(paths)
		if err != nil {
			return nil, err
		}
		if p := cfg.Profile(name); p != nil {
			c := *p
			c.Senders = slices.Clone(p.Senders)
			return &c, nil
		}
		if name == config.DefaultProfile {
			return &config.Profile{Name: name}, nil
		}
		return nil, fmt.Errorf("%s has no profile %q now (removed since this process started?)", paths.ConfigFile, model.SanitizeLine(name))
	}
}

// root is the session s was derived from for one send's rules (rulesNow),
// or s itself: where the session's own state (its sends running, its
// operator's standing) lives.
func (s *Session) root() *Session {
	if s.base != nil {
		return s.base
	}
	return s
}

// rulesNow is the session with its profile's settings as the config file
// holds them now (Settings): a copy that shares everything else with s
// (client, state, operator and their standing), for one plan or one start.
// A session with no Settings keeps the profile it was opened with (tests,
// and faces opened without a file). The profile's name, service and key
// are the session's: the client was made for them.
func (s *Session) rulesNow() (*Session, error) {
	r := s.root()
	if r.Settings == nil {
		return s, nil
	}
	prof, err := r.Settings()
	if err != nil {
		return nil, &Refusal{Rule: RuleSetting, Profile: model.SanitizeLine(r.Profile.Name),
			Reason: fmt.Sprintf("the settings of profile %s cannot be read now: %s; nothing was sent", model.SanitizeLine(r.Profile.Name), model.SanitizeLine(err.Error()))}
	}
	fresh := ResolveProfile(r.Profile.Name, r.Profile.BaseURL, prof, r.Profile.KeyKind)
	if r.Client != nil { // the pace is a rule too: serve's one client lives for days
		r.Client.SetRatePerMinute(firstPositive(fresh.RatePerMinute, config.DefaultRatePerMinute))
	}
	return s.withProfile(fresh), nil
}

// withProfile is a session derived from s's root for one send's rules:
// profile p, everything else shared.
func (s *Session) withProfile(p Profile) *Session {
	r := s.root()
	return &Session{Profile: p, Client: r.Client, Paths: r.Paths, Now: r.Now, Sleep: r.Sleep, Operator: r.Operator,
		Operators: r.Operators, Tracker: r.Tracker, Account: r.Account, base: r}
}

// Rules is the profile's settings as the config file holds them now (the
// profile the session was opened with when it has no Settings): what a
// face shows as the rules (a status bar, doctor). It reads the file: call
// it off a UI loop.
func (s *Session) Rules() (Profile, error) {
	d, err := s.rulesNow()
	if err != nil {
		return Profile{}, err
	}
	return d.Profile, nil
}

// RulesRead is the profile's rules as a face read them (ReadRules), with
// the config file as it was then, to tell when to read them again
// (RulesChanged) without parsing it.
type RulesRead struct {
	// Rules are the profile's settings as read; when Err is set, the ones
	// given to ReadRules (last read), kept for show: a send refuses.
	Rules Profile
	// Err is why the settings did not read (a Refusal, RuleSetting).
	Err   error
	stamp fileStamp
}

// fileStamp is a file as a stat saw it: which file, its time and size.
type fileStamp struct {
	info os.FileInfo // nil: no file (or none to look at)
	mod  time.Time
	size int64
}

func (a fileStamp) same(b fileStamp) bool {
	if a.info == nil || b.info == nil {
		return a.info == nil && b.info == nil
	}
	return os.SameFile(a.info, b.info) && a.mod.Equal(b.mod) && a.size == b.size
}

// stamp is the session's config file as it is now; a session with no
// Settings has none to look at (the zero stamp, never changing).
func (s *Session) stamp() fileStamp {
	r := s.root()
	if r.Settings == nil || r.Paths.ConfigFile == "" {
		return fileStamp{}
	}
	fi, err := os.Stat(r.Paths.ConfigFile)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{info: fi, mod: fi.ModTime(), size: fi.Size()}
}

// ReadRules reads the profile's rules as they are now (Rules), with the
// config file's stamp, for a face that shows them (a status bar, a time
// form's zone and quiet hours) and reads them again only when the file
// has changed (RulesChanged): a stat a second, a parse only after a
// `config set`. last is what the face held before: what it keeps showing
// when the file does not read (Err says why). It reads the file: call it
// off a UI loop.
func (s *Session) ReadRules(last Profile) RulesRead {
	st := s.stamp() // before the read: a write between them is seen at the next look
	rules, err := s.Rules()
	if err != nil {
		return RulesRead{Rules: last, Err: err, stamp: st}
	}
	return RulesRead{Rules: rules, stamp: st}
}

// RulesChanged reports whether the config file is not as it was when r
// was read (another file, time or size; made or removed): a stat, no
// parse. It reads the file system: call it off a UI loop.
func (s *Session) RulesChanged(r RulesRead) bool { return !s.stamp().same(r.stamp) }

// settingsChanged names the settings that decide a send and differ
// between was (what its question showed) and now, for people: "quiet_hours
// off → 22:00-08:00".
func settingsChanged(was, now Profile) []string {
	var out []string
	diff := func(name, a, b string) {
		if a != b {
			out = append(out, fmt.Sprintf("%s %s → %s", name, orNone(a), orNone(b)))
		}
	}
	diff("quiet_hours", model.QuietText(was.Quiet, was.Zone()), model.QuietText(now.Quiet, now.Zone()))
	diff("timezone", was.Zone().String(), now.Zone().String())
	diff("optout_suffix", was.Suffix, now.Suffix)
	diff("sender", was.Sender, now.Sender)
	if !slices.Equal(was.Senders, now.Senders) {
		out = append(out, "senders changed")
	}
	diff("chunk_size", fmt.Sprint(was.ChunkSize), fmt.Sprint(now.ChunkSize))
	diff("price_gsm7", fmt.Sprint(was.Prices.GSM7), fmt.Sprint(now.Prices.GSM7))
	diff("price_ucs2", fmt.Sprint(was.Prices.UCS2), fmt.Sprint(now.Prices.UCS2))
	diff("number_format", fmt.Sprint(was.NumberFormat), fmt.Sprint(now.NumberFormat))
	diff("allow_international", fmt.Sprint(was.AllowInternational), fmt.Sprint(now.AllowInternational))
	diff("repeat_window", was.RepeatWindow.String(), now.RepeatWindow.String())
	diff("retry_for", was.RetryFor.String(), now.RetryFor.String())
	diff("rate_per_minute", fmt.Sprint(was.RatePerMinute), fmt.Sprint(now.RatePerMinute))
	if (was.Invalid == nil) != (now.Invalid == nil) {
		out = append(out, "a setting that does not read")
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return model.SanitizeLine(s)
}

// changedRefusal refuses a send at its start when the settings its
// question showed (was) are not the ones that hold now: nothing is sent;
// asking again shows them.
func changedRefusal(was, now Profile, nothing string) *Refusal {
	changed := settingsChanged(was, now)
	if len(changed) == 0 {
		return nil
	}
	r := &Refusal{Rule: RuleSettingsChanged, Profile: model.SanitizeLine(now.Name),
		Reason: fmt.Sprintf("the settings of profile %s changed while this send was being confirmed (%s); %s",
			model.SanitizeLine(now.Name), changed[0], nothing)}
	for _, c := range changed {
		r.Details = append(r.Details, "changed: "+c)
	}
	return r
}

// replan is plan built again under the rules of s (fresh) when the face
// built it under others (was, or the plan's own suffix): another suffix,
// number format or rule on foreign numbers. Each message loses the suffix
// it was given and gets the one that holds now (none when the operator
// left the profile's out: plan.NoSuffix). A plan built under the same
// rules is returned as it is.
func (s *Session) replan(plan *model.SendPlan, was Profile) *model.SendPlan {
	now := s.Profile
	sameSuffix := plan.NoSuffix || plan.Suffix == s.suffix()
	if sameSuffix && was.NumberFormat == now.NumberFormat && was.AllowInternational == now.AllowInternational {
		return plan
	}
	b := s.NewPlan(plan.Sender, plan.NoSuffix, len(plan.Items))
	for _, it := range plan.Items {
		b.Add(model.PairRow{Line: it.Line, Recipient: it.Input, Message: withoutSuffix(it.Message, plan.Suffix)})
	}
	return b.Plan()
}

// withoutSuffix is message without the suffix line model.WithSuffix gave
// it ("" gave none).
func withoutSuffix(message, suffix string) string {
	if suffix == "" {
		return message
	}
	if n := len(message) - len(suffix) - 1; n >= 0 && message[n:] == "\n"+suffix {
		return message[:n]
	}
	return message
}
