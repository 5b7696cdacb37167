package app

// The one contacts import shared by the console and `smsdesk contacts
// import`: read the group, preview the file against it
// (model.PreviewImport), then add the valid rows one by one.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// PreviewImport lists the group and checks rows against it and the
// service's rules, with the profile's number format.
func (s *Session) PreviewImport(ctx context.Context, groupID model.ID, rows []model.ContactRow) (model.ImportPreview, error) {
	if err := s.Allow(ActionImport); err != nil {
		return model.ImportPreview{}, err
	}
	contacts, err := s.Client.ListContacts(ctx, groupID, nil)
	if err != nil {
		return model.ImportPreview{}, fmt.Errorf("listing group %s to skip contacts already in it: %w; nothing was imported", model.SanitizeLine(groupID.String()), err)
	}
	existing := make([]string, len(contacts))
	for i, c := range contacts {
		existing[i] = c.Mobile
	}
	return model.PreviewImport(rows, s.importOptions(), existing), nil
}

// ImportSummary counts what Import did.
type ImportSummary struct {
	Added, Already, Failed, NotAttempted int
}

// Import adds rows (the preview's Valid rows) to the group in order, setting each
// row's Status, ID and Error; onRow (optional) is called after each row. A
// duplicate answer counts as skipped (already in the group), not failed. A
// cancelled ctx stops before the next row; the row in flight is finished, so
// the summary is exact. A refused key, a forbidden action or a missing group
// stops the import: every further row would fail the same way. So does a
// service that cannot be reached: a row that got no answer within the
// client's retry budget, or two in a row whose answer never came; each
// further row would only wait out the same budget (40 rows once meant 12
// minutes of retries against a dead service).
func (s *Session) Import(ctx context.Context, groupID model.ID, rows []model.ImportRow, onRow func(i int)) ImportSummary {
	if err := s.Allow(ActionImport); err != nil {
		for i := range rows {
			rows[i].Status, rows[i].Error = model.ImportSkipped, err.Error()
		}
		return ImportSummary{NotAttempted: len(rows)}
	}
	sum := s.importRows(ctx, groupID, rows, onRow)
	s.audit(ctx, config.AuditRecord{Action: "import", GroupID: groupID,
		Counts: map[string]int{"added": sum.Added, "already": sum.Already, "failed": sum.Failed, "not_attempted": sum.NotAttempted}}, nil)
	return sum
}

func (s *Session) importRows(ctx context.Context, groupID model.ID, rows []model.ImportRow, onRow func(i int)) ImportSummary {
	var sum ImportSummary
	unanswered := 0 // rows in a row that got no HTTP answer
	for i := range rows {
		r := &rows[i]
		if ctx.Err() != nil {
			r.Status, r.Error = model.ImportSkipped, "interrupted before this row"
			sum.NotAttempted++
			continue
		}
		kind, stop := s.addRow(ctx, groupID, r, &unanswered)
		*kind.of(&sum)++
		if kind == rowInterrupted {
			continue
		}
		if stop {
			for j := i + 1; j < len(rows); j++ {
				rows[j].Status, rows[j].Error = model.ImportSkipped, "not attempted after: "+r.Error
				sum.NotAttempted++
			}
			i = len(rows) - 1
		}
		if onRow != nil {
			onRow(i)
		}
		if stop {
			break
		}
	}
	return sum
}

// rowKind is what became of one row, as the summary counts it.
type rowKind int

const (
	rowAdded rowKind = iota
	rowAlready
	rowFailed
	rowNotAttempted
	rowInterrupted // stopped before it was sent: not attempted, and no progress
)

// of is the summary's counter for the kind.
func (k rowKind) of(sum *ImportSummary) *int {
	switch k {
	case rowAdded:
		return &sum.Added
	case rowAlready:
		return &sum.Already
	case rowFailed:
		return &sum.Failed
	}
	return &sum.NotAttempted
}

// addRow adds one contact and records its verdict in r. A row written to the
// service is finished whatever ctx does; a row still waiting (for the rate
// budget, or to retry a request that did not reach the service) stops with
// ctx: it was never sent. stop says every further row would fail the same
// way (a refused key, a forbidden action, a missing group, a service that
// cannot be reached).
func (s *Session) addRow(ctx context.Context, groupID model.ID, r *model.ImportRow, unanswered *int) (kind rowKind, stop bool) {
	rctx := client.StopBeforeSend(context.WithoutCancel(ctx), ctx)
	c, err := s.Client.AddContact(rctx, client.NewContact{GroupID: groupID, Name: r.Name, Mobile: r.Mobile})
	var ae *client.APIError
	if err == nil || errors.As(err, &ae) {
		*unanswered = 0 // the service answered
	} else {
		*unanswered++
	}
	switch {
	case err != nil && ctx.Err() != nil && errors.Is(err, client.ErrNotSent):
		r.Status, r.Error = model.ImportSkipped, "interrupted before this row was sent"
		return rowInterrupted, false
	case err == nil:
		r.Status, r.ID, r.Error = model.ImportAdded, c.ID, ""
		return rowAdded, false
	case IsDuplicate(err):
		r.Status, r.Error = model.ImportSkipped, model.AlreadyInGroup+" (the service says so)"
		return rowAlready, false
	}
	kind = rowFailed
	notSent := *unanswered > 0 && errors.Is(err, client.ErrNotSent) // the retry budget ran out before it went
	if notSent {
		kind, r.Status, r.Error = rowNotAttempted, model.ImportSkipped, "not sent: "+model.SanitizeLine(err.Error())
	} else {
		r.Status, r.Error = model.ImportFailed, model.SanitizeLine(err.Error())
	}
	return kind, notSent || *unanswered >= 2 || errors.Is(err, client.ErrUnauthorized) || errors.Is(err, client.ErrForbidden) || errors.Is(err, client.ErrNotFound)
}

// IsDuplicate reports the service refusing a contact because the group has it
// already, by structured signals only: a 409 Conflict, or the documented code
// duplicate_contact (422 in the service's documentation and the sandbox; a 409
// or a success:false in a 2xx with it too). Free text is not read: a 422
// whose message says "already" or "taken" may be any validation ("The mobile
// has already been blocked"), and a row counted skipped as already in the
// group is one the operator believes is there. Laravel's own unique rule
// (422 validation_failed, "has already been taken") is therefore a failed
// row, with the service's words, not a skipped one.
func IsDuplicate(err error) bool {
	var ae *client.APIError
	if !errors.As(err, &ae) {
		return false
	}
	return ae.Status == http.StatusConflict ||
		ae.Status < http.StatusInternalServerError && strings.EqualFold(ae.Code, "duplicate_contact")
}

// CheckImport checks a file's rows before anything goes to the service: any
// invalid row refuses the whole import (naming file and line), unless
// skipInvalid, when they are only listed. It returns the invalid rows.
func (s *Session) CheckImport(rows []model.ContactRow, file string, skipInvalid bool) ([]model.ImportRow, error) {
	invalid := model.PreviewImport(rows, s.importOptions(), nil).Invalid
	return invalid, s.refuseImport(invalid, len(rows), file, skipInvalid)
}

// refuseImport is the refusal of a file of rows with invalid rows among
// them (nil with none, or with skipInvalid).
func (s *Session) refuseImport(invalid []model.ImportRow, rows int, file string, skipInvalid bool) error {
	if len(invalid) == 0 || skipInvalid {
		return nil
	}
	r := &Refusal{Rule: RuleImportRows, Count: len(invalid), Of: rows, Source: model.SanitizeLine(file),
		Reason: fmt.Sprintf("%d invalid row(s) in %s; nothing was imported", len(invalid), model.SanitizeLine(file))}
	for _, row := range invalid {
		r.Details = append(r.Details, fmt.Sprintf("%s line %d: %s", model.SanitizeLine(file), row.Line, model.SanitizeLine(row.Error)))
	}
	return r
}

// importOptions are the profile's rules for an import.
func (s *Session) importOptions() model.ImportOptions {
	return model.ImportOptions{Format: s.Profile.NumberFormat, AllowInternational: s.Profile.AllowInternational}
}
