package app

// Who did what: the audit trail read back (smsdesk audit, the console's
// history). The trail is the ledger's (config.AuditRecord, one a change
// besides sending); reading it is an admin's on a served console, as it
// names every operator's changes and the numbers they touched; at the
// host's own terminal the host's user reads it.

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// ActionAudit is reading the audit trail.
const ActionAudit Action = "reading the audit trail"

// DefaultAuditLimit is how many records Audit lists when the query names
// no limit.
const DefaultAuditLimit = 50

// AuditQuery is what Audit lists.
type AuditQuery struct {
	// Since keeps the records written at or after it (zero: any time).
	Since time.Time
	// Operator keeps one served console operator's records ("": anyone's).
	Operator string
	// Limit is how many at most, newest first (0: DefaultAuditLimit; a
	// negative limit is refused); All lists every record.
	Limit int
	All   bool
}

// AuditEvent is one record of the trail, for people and for --json.
type AuditEvent struct {
	Seq  int64
	Time time.Time // in the profile's zone
	// Operator is who did it on a served console (nil: this host's own
	// terminal, or a runner).
	Operator *model.Operator
	// Action is the record's machine name (optout_add, import, …); What
	// says it in words, Details what it was done to and how it went.
	Action  string
	What    string
	Details string
	Record  config.AuditRecord
}

// Audit lists the audit trail's records that q keeps, newest first. A
// served console's operator needs the admin role (RuleRole otherwise).
func (s *Session) Audit(ctx context.Context, q AuditQuery) ([]AuditEvent, error) {
	if err := s.Allow(ActionAudit); err != nil {
		return nil, err
	}
	if q.Limit < 0 {
		return nil, fmt.Errorf("a limit of %d records: give a positive number", q.Limit)
	}
	limit := q.Limit
	switch {
	case q.All:
		limit = math.MaxInt
	case limit == 0:
		limit = DefaultAuditLimit
	}
	lines, err := config.AuditNewest(ctx, s.Paths, config.AuditFilter{Since: q.Since, Operator: q.Operator, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := make([]AuditEvent, len(lines))
	loc := s.Profile.Zone()
	for i, l := range lines {
		r := l.AuditRecord
		out[i] = AuditEvent{Seq: l.Seq, Time: r.Time.In(loc), Operator: r.Operator, Action: model.SanitizeLine(r.Action),
			What: AuditWhat(r.Action), Details: AuditDetails(r, loc), Record: r}
	}
	return out, nil
}

// auditWords are the actions in words.
var auditWords = map[string]string{
	"add_contact":               "added a contact",
	"delete_contact":            "deleted a contact",
	"import":                    "imported contacts",
	"create_group":              "created a group",
	"track_group":               "tracked a group",
	"untrack_group":             "untracked a group",
	"optout_add":                "opted a number out",
	"optout_remove":             "took a number off the opt-out list",
	"optout_import":             "imported opt-outs",
	"line_kind":                 "set a line's kind",
	"line_kind_unset":           "cleared a line's kind",
	"optout_reply":              "a reply opted its number out",
	"optin_reply":               "a reply took its number back",
	"export_contacts":           "exported contacts",
	"export_results":            "exported a send's results",
	"ignore_quiet_hours":        "sent through quiet hours",
	"ignore_quiet_hours_resume": "resumed through quiet hours",
	"cancel_scheduled":          "cancelled a scheduled send",
	"ledger_new":                "started a new ledger",
}

// AuditWhat is an action in words; one this smsdesk does not know is
// shown as it is recorded.
func AuditWhat(action string) string {
	if w, ok := auditWords[action]; ok {
		return w
	}
	return model.SanitizeLine(action)
}

// AuditDetails is what a record says besides who and what, in words, one
// line: what it was done to, its counts, its file, and the error it met.
func AuditDetails(r config.AuditRecord, loc *time.Location) string {
	var parts []string
	add := func(label, v string) {
		if v != "" {
			parts = append(parts, label+model.SanitizeLine(v))
		}
	}
	add("group ", r.Name)
	if r.Name == "" {
		add("group ", string(r.GroupID))
	}
	add("contact ", contactOf(r))
	add("", r.Mobile)
	if strings.HasPrefix(r.Action, "optout_") || r.Action == "optin_reply" || strings.HasPrefix(r.Action, "line_kind") {
		line := "every line"
		if r.Sender != "" {
			line = "line " + model.SanitizeLine(r.Sender)
		}
		parts = append(parts, line)
	}
	add("send ", r.Send)
	if len(r.Counts) > 0 {
		var cs []string
		for _, k := range slices.Sorted(maps.Keys(r.Counts)) {
			cs = append(cs, fmt.Sprintf("%d %s", r.Counts[k], strings.ReplaceAll(model.SanitizeLine(k), "_", " ")))
		}
		parts = append(parts, strings.Join(cs, ", "))
	}
	if r.Rows > 0 {
		parts = append(parts, fmt.Sprintf("%d rows", r.Rows))
	}
	add("file ", r.File)
	add("", r.Note)
	add("message ", r.MessageID)
	if r.Profile != "" && r.Action != "ledger_new" {
		add("profile ", r.Profile)
	}
	add("failed: ", r.Error)
	return strings.Join(parts, " · ")
}

// contactOf is the contact a record acted on ("" for a group's record,
// whose ID is the group).
func contactOf(r config.AuditRecord) string {
	switch r.Action {
	case "add_contact", "delete_contact":
		return string(r.ID)
	}
	return ""
}
