package app

// One send, one request (issue 41): a face gathers a SendRequest (what to
// send, when, which rules the operator waives, a once-only id, a dry run)
// and hands it to PrepareSend, the one entry of a new send. PrepareSend
// reads the sender line and the time, builds the plan from what was given
// (a pairs file read as it comes, a file's rows or a group's contacts
// through a template, pairs given one by one, or a plan the face built as
// the operator typed), and applies every rule: the once-only id, the time,
// quiet hours, repeats, the credit and the plan. It returns the pending
// send with its refusal or question; no face sequences the rules itself.
// A resume has its own request (PrepareResume: the send's id and
// ResumeOptions), as its answer is another: what is left, what is unknown.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// The rules of a request that cannot be read as asked.
const (
	RuleOnceID  Rule = "once_id"  // a once-only id that cannot be one (Name: the id, Reason: why)
	RuleGroupID Rule = "group_id" // a group id that is none the service or the profile has (Name: as given)
)

// SendRequest is a new send as the operator asks for it: what to send,
// when, and what the operator said of the rules.
type SendRequest struct {
	// What to send: one of Plan, Rows, File, Group or Resend.
	//
	// Plan is rows the face planned itself (the console's composer plans
	// as the operator types: Session.Plan), with Source naming where they
	// came from; it is planned again under the profile's settings as they
	// are now.
	Plan *model.SendPlan
	// Rows are pairs given one by one (send-pair --to/--message).
	Rows []model.PairRow
	// File is a file of rows: pairs (a recipient and its message a row),
	// or, with Template, contacts whose columns the template names.
	File *FileRows
	// Group is a group's id as the operator gave it (GroupID reads it):
	// its contacts rendered through Template.
	Group string
	// Template renders the message of each of File's rows or Group's
	// contacts (ParseTemplate).
	Template *model.Template
	// Resend is an earlier send whose failed messages go again, from its
	// own line (resend.go): Sender, when given, must be that line; At
	// refuses (a resend is checked and sent now).
	Resend *ResendFailed
	// Sender is the sender line ("": the profile's); NoSuffix leaves the
	// profile's opt-out suffix out (recorded). Both for rows planned here:
	// a face's Plan has its own.
	Sender   string
	NoSuffix bool
	// Source names where the rows came from; set here for Rows, File and
	// Group.
	Source Source

	// When: At, when set, is when the send is to start: it is scheduled
	// (PendingSend.Schedule), not started, and the rules that depend on
	// the hour look at At. AtText is the time as the operator wrote it
	// (send-pair --at, the console's "at …"), read by ScheduleAt into At.
	At     time.Time
	AtText string

	// ChunkSize is items per request (0: the profile's); the plan's
	// estimate counts it.
	ChunkSize int
	// AllowRepeat sends pairs that earlier sends accepted, or may have
	// sent, within the repeat window (--allow-repeat, the console's answer
	// to its repeat question): only on the operator's say. It covers the
	// sends the check named (Verdict.Repeats); one begun after the check is
	// refused as the send starts, whatever was said.
	AllowRepeat bool
	// OnceID, when set, makes the send once-only on the account (any
	// profile, any operator): a send with this id made already refuses it
	// (RuleOnce, checked again under the start lock), and Start records the
	// id with the new send. One that cannot be an id is RuleOnceID.
	OnceID string
	// IgnoreQuietHours sends inside, or on past the start of, the
	// profile's quiet hours (--ignore-quiet-hours; the admin role on a
	// served console): recorded in the journal and the audit trail.
	IgnoreQuietHours bool
	// DryRun checks the send and never sends it: Start and Schedule refuse.
	DryRun bool

	taken *resendTaken // what planning Resend took (PendingSend.Resent)
}

// FileRows is a file of rows to send, read as it comes: a pairs file of a
// million rows is held once, as the plan.
type FileRows struct {
	R io.Reader
	// Name is the file as refusals name it: its base name, or "stdin".
	Name string
	// Lines is how many lines it has, an upper bound on its rows, to size
	// the plan once (0: not known, a pipe).
	Lines int
	// Pairs says how a pairs file's columns read (not with Template).
	Pairs model.PairsOptions
}

// RowsError is why the rows to send could not be read (a file that is not
// CSV, a pairs file without a message column, one that reads like a
// contacts file): Err names the file and the line (errors.Is finds
// model.ErrNoMessageColumn and model.ErrLooksLikeContacts). Nothing was
// sent.
type RowsError struct {
	Source Source
	Err    error
}

func (e *RowsError) Error() string { return e.Err.Error() + "; nothing was sent" }
func (e *RowsError) Unwrap() error { return e.Err }

// PrepareSend checks a new send: it reads the request's sender line and
// time, plans what it asks to send, gathers the facts (the profile's lines
// and prices, this profile's recent sends, the account's credit) and
// applies the send rules. A refusal of the plan comes back in
// PendingSend.Refusal, with the verdict, for the face to show; err is why
// the request could not be checked at all (a once-only id or a time that
// does not read, no sender line, rows that do not read, the operator's
// role, a profile setting that does not read, the send history
// unreadable). It works without a client (a dry run offline): the credit
// is then unknown.
//
// The profile's settings are read as they are now (Session.Settings): a
// plan the face built under others (another suffix, number format) is
// built again under them, and the pending send keeps them for its
// confirmation and its start.
func (s *Session) PrepareSend(ctx context.Context, req SendRequest) (*PendingSend, error) {
	if req.OnceID != "" {
		if err := model.CheckOnceID(req.OnceID); err != nil {
			return nil, &Refusal{Rule: RuleOnceID, Name: model.SanitizeLine(req.OnceID), Reason: "once-only id: " + err.Error()}
		}
	}
	if err := req.Resend.now(req); err != nil {
		return nil, err
	}
	fresh, err := s.rulesNow()
	if err != nil {
		return nil, err
	}
	if fresh, err = fresh.forRequest(ctx, req); err != nil {
		return nil, err
	}
	if req.Plan != nil {
		req.Plan = fresh.replan(req.Plan, s.Profile)
	}
	if req.AtText != "" {
		if req.At, err = fresh.ScheduleAt(req.AtText, req.IgnoreQuietHours); err != nil {
			return nil, err
		}
	}
	layout, err := fresh.planRequest(ctx, &req)
	if err != nil {
		return nil, err
	}
	p, err := fresh.prepareSend(ctx, req)
	if p != nil {
		p.Layout = layout
	}
	return p, err
}

// forRequest is s derived for req's send: its line's kind read (which
// decides its suffix before it is planned). A request with no line is
// refused as it is planned (planRequest).
func (s *Session) forRequest(ctx context.Context, req SendRequest) (*Session, error) {
	line, noSuffix := req.Sender, req.NoSuffix
	if req.Plan != nil {
		line, noSuffix = req.Plan.Sender, req.Plan.NoSuffix
	}
	line, err := s.Sender(line)
	if err != nil {
		return s, nil
	}
	return s.forLine(ctx, line, noSuffix, 0, 0)
}

// planRequest plans what req asks to send, from its sender line, unless
// the face planned it (req.Plan); a pairs file's layout comes back.
func (s *Session) planRequest(ctx context.Context, req *SendRequest) (*model.PairsLayout, error) {
	if req.Plan != nil {
		return nil, nil
	}
	if req.Resend != nil {
		return nil, s.planResend(ctx, req)
	}
	if req.Rows == nil && req.File == nil && req.Group == "" {
		return nil, errors.New("nothing to send: no rows, file or group; nothing was sent")
	}
	sender, err := s.Sender(req.Sender)
	if err != nil {
		return nil, err
	}
	switch {
	case req.Rows != nil:
		req.Plan, req.Source = s.PlanWith(sender, req.Rows, req.NoSuffix), ArgsSource()
		return nil, nil
	case req.Group != "":
		return nil, s.planGroup(ctx, req, sender)
	case req.Template != nil:
		return nil, s.planContactsFile(req, sender)
	}
	return s.planPairsFile(req, sender)
}

// planGroup renders req's template over the contacts of its group.
func (s *Session) planGroup(ctx context.Context, req *SendRequest, sender string) error {
	if req.Template == nil {
		return &Refusal{Rule: RuleTemplate, Reason: "a group's send needs a template; nothing was sent"}
	}
	id, err := s.GroupID(req.Group)
	if err != nil {
		return err
	}
	rows, src, err := s.GroupRows(ctx, id, req.Template)
	req.Source = src
	if err != nil {
		return err
	}
	req.Plan = s.PlanWith(sender, rows, req.NoSuffix)
	return nil
}

// planContactsFile renders req's template over the rows of its file.
func (s *Session) planContactsFile(req *SendRequest, sender string) error {
	src := FileSource(req.File.Name)
	req.Source = src
	var crs []model.ContactRow
	if err := model.ReadContacts(req.File.R, func(r model.ContactRow) error { crs = append(crs, r); return nil }); err != nil {
		return &RowsError{Source: src, Err: model.NameCSVError(err, src.Name)}
	}
	rows, err := TemplateRows(req.Template, crs, src)
	if err != nil {
		return err
	}
	req.Plan = s.PlanWith(sender, rows, req.NoSuffix)
	return nil
}

// planPairsFile plans a pairs file's rows as they are read.
func (s *Session) planPairsFile(req *SendRequest, sender string) (*model.PairsLayout, error) {
	src := FileSource(req.File.Name)
	req.Source = src
	pb := s.NewPlan(sender, req.NoSuffix, req.File.Lines)
	lay, err := model.ReadPairsWith(req.File.R, req.File.Pairs, func(r model.PairRow) error { pb.Add(r); return nil })
	if err != nil {
		return nil, &RowsError{Source: src, Err: model.NameCSVError(err, src.Name)}
	}
	req.Plan = pb.Plan()
	return &lay, nil
}

// groupIDRefusal refuses text as a group id.
func groupIDRefusal(text string) *Refusal {
	return &Refusal{Rule: RuleGroupID, Name: model.SanitizeLine(text),
		Reason: fmt.Sprintf("group id %q: want a group's number, like 12", model.SanitizeLine(text))}
}
