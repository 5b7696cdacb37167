// Package importer is the one contacts import shared by the console and
// `smsdesk contacts import`: read the group, preview the file against it
// (model.PreviewImport), then add the valid rows one by one.
package importer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/model"
)

// Preview lists the group and checks rows against it and the service's rules.
func Preview(ctx context.Context, cl *client.Client, groupID model.ID, rows []model.ContactRow, format model.NumberFormat) (model.ImportPreview, error) {
	contacts, err := cl.ListContacts(ctx, groupID, nil)
	if err != nil {
		return model.ImportPreview{}, fmt.Errorf("listing group %s to skip contacts already in it: %w; nothing was imported", model.SanitizeLine(groupID.String()), err)
	}
	existing := make([]string, len(contacts))
	for i, c := range contacts {
		existing[i] = c.Mobile
	}
	return model.PreviewImport(rows, format, existing), nil
}

// Summary counts what Run did.
type Summary struct {
	Added, Already, Failed, NotAttempted int
}

// Run adds rows (the preview's Valid rows) to the group in order, setting each
// row's Status, ID and Error; onRow (optional) is called after each row. A
// duplicate answer counts as skipped (already in the group), not failed. A
// cancelled ctx stops before the next row; the row in flight is finished, so
// the summary is exact. A refused key, a forbidden action or a missing group
// stops the import: every further row would fail the same way. So does a
// service that cannot be reached: a row that got no answer within the
// client's retry budget, or two in a row whose answer never came; each
// further row would only wait out the same budget (40 rows once meant 12
// minutes of retries against a dead service).
func Run(ctx context.Context, cl *client.Client, groupID model.ID, rows []model.ImportRow, onRow func(i int)) Summary {
	var s Summary
	unanswered := 0 // rows in a row that got no HTTP answer
	for i := range rows {
		r := &rows[i]
		if ctx.Err() != nil {
			r.Status, r.Error = model.ImportSkipped, "interrupted before this row"
			s.NotAttempted++
			continue
		}
		// A row written to the service is finished whatever ctx does; a row
		// still waiting (for the rate budget, or to retry a request that did
		// not reach the service) stops with ctx: it was never sent.
		rctx := client.StopBeforeSend(context.WithoutCancel(ctx), ctx)
		c, err := cl.AddContact(rctx, client.NewContact{GroupID: groupID, Name: r.Name, Mobile: r.Mobile})
		var ae *client.APIError
		if err == nil || errors.As(err, &ae) {
			unanswered = 0 // the service answered
		} else {
			unanswered++
		}
		switch {
		case err != nil && ctx.Err() != nil && errors.Is(err, client.ErrNotSent):
			r.Status, r.Error = model.ImportSkipped, "interrupted before this row was sent"
			s.NotAttempted++
			continue
		case err == nil:
			r.Status, r.ID, r.Error = model.ImportAdded, c.ID, ""
			s.Added++
		case IsDuplicate(err):
			r.Status, r.Error = model.ImportSkipped, model.AlreadyInGroup+" (the service says so)"
			s.Already++
		default:
			notSent := unanswered > 0 && errors.Is(err, client.ErrNotSent) // the retry budget ran out before it went
			if notSent {
				r.Status, r.Error = model.ImportSkipped, "not sent: "+model.SanitizeLine(err.Error())
				s.NotAttempted++
			} else {
				r.Status, r.Error = model.ImportFailed, model.SanitizeLine(err.Error())
				s.Failed++
			}
			unreachable := notSent || unanswered >= 2
			if unreachable || errors.Is(err, client.ErrUnauthorized) || errors.Is(err, client.ErrForbidden) || errors.Is(err, client.ErrNotFound) {
				for j := i + 1; j < len(rows); j++ {
					rows[j].Status, rows[j].Error = model.ImportSkipped, "not attempted after: "+r.Error
					s.NotAttempted++
				}
				if onRow != nil {
					onRow(len(rows) - 1)
				}
				return s
			}
		}
		if onRow != nil {
			onRow(i)
		}
	}
	return s
}

// IsDuplicate reports the service refusing a contact because the group has it
// already (409, or a 422 whose code or message says duplicate/exists/taken).
func IsDuplicate(err error) bool {
	var ae *client.APIError
	if !errors.As(err, &ae) {
		return false
	}
	if ae.Status == http.StatusConflict {
		return true
	}
	text := strings.ToLower(ae.Code + " " + ae.Message + " " + fmt.Sprint(ae.Fields))
	return ae.Status == http.StatusUnprocessableEntity &&
		(strings.Contains(text, "duplicate") || strings.Contains(text, "already") || strings.Contains(text, "taken") || strings.Contains(text, "exists"))
}
