package app

// A group's contacts changed one at a time, by every face, with the role
// check and an audit record (an import is import.go).

import (
	"context"
	"strings"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// AddContact adds one contact to a group (sender role), recorded in the
// audit trail. mobile is taken in any common spelling and added in the
// profile's number format; before any request a number that is not a
// mobile, one outside Iran (unless the profile allows international
// numbers) and a name the service would refuse are refused (RuleContact),
// as an import refuses them row by row.
func (s *Session) AddContact(ctx context.Context, groupID model.ID, mobile, name string) (model.Contact, error) {
	if err := s.Allow(ActionAddContact); err != nil {
		return model.Contact{}, err
	}
	name = strings.TrimSpace(name)
	normalized, problem := model.ContactMobileProblem(mobile, s.importOptions())
	if problem == "" {
		problem = model.ContactNameProblem(name)
	}
	if problem != "" {
		return model.Contact{}, &Refusal{Rule: RuleContact, Reason: problem + "; nothing was added"}
	}
	c, err := s.Client.AddContact(ctx, client.NewContact{GroupID: groupID, Mobile: normalized, Name: name})
	s.audit(ctx, config.AuditRecord{Action: "add_contact", GroupID: groupID, ID: c.ID, Mobile: normalized}, err)
	if err != nil {
		return c, err
	}
	if c.Mobile == "" {
		c.Mobile = normalized
	}
	if c.Name == "" {
		c.Name = name
	}
	return c, nil
}

// DeleteContact deletes one contact (admin role), recorded in the audit
// file. groupID is the group it is in, for the record ("" when the face
// does not know it: smsdesk contacts delete takes contact ids only).
func (s *Session) DeleteContact(ctx context.Context, groupID, id model.ID) error {
	if err := s.Allow(ActionDeleteContact); err != nil {
		return err
	}
	err := s.Client.DeleteContact(ctx, id)
	s.audit(ctx, config.AuditRecord{Action: "delete_contact", GroupID: groupID, ID: id}, err)
	return err
}

// ContactsQuery is how ListContacts lists a group's contacts.
type ContactsQuery struct {
	// Limit stops the pages once there are enough (0: every page).
	Limit int
	// OnPage follows the pages as they come (nil: none).
	OnPage func(client.ListProgress)
	// Remember keeps the group's size, once known, for the known groups
	// (groups list shows it; the console keeps it as its table fills).
	Remember bool
}

// ContactList is a group's contacts as listed.
type ContactList struct {
	// Contacts are the contacts listed, at most the query's Limit.
	Contacts []model.Contact
	// Total is the group's size: every contact when all were listed, what
	// the service said when Limit stopped the pages (-1: it did not say).
	Total int
	// Remembered is why the size could not be kept (Remember), nil when
	// it was, or the group is not one the profile knows.
	Remembered error
}

// ListContacts lists group id's contacts (no role: it reads), every page
// or until q.Limit are listed.
func (s *Session) ListContacts(ctx context.Context, id model.ID, q ContactsQuery) (ContactList, error) {
	out := ContactList{Total: -1}
	if s.Client == nil {
		return out, ErrNotSignedIn
	}
	lctx, enough := context.WithCancel(ctx)
	defer enough()
	cut := false
	contacts, err := s.Client.ListContacts(lctx, id, func(p client.ListProgress) {
		out.Total = p.Total
		if q.Limit > 0 && p.Loaded >= q.Limit {
			cut = true
			enough()
		}
		if q.OnPage != nil {
			q.OnPage(p)
		}
	})
	switch {
	case cut && ctx.Err() == nil:
		err = nil // stopped on purpose: there are enough
	case err == nil:
		out.Total = len(contacts)
	}
	if err != nil {
		out.Contacts = contacts // what came before the error, as the client gave it
		return out, err
	}
	if q.Remember && out.Total >= len(contacts) { // not a count the service gave that is less than it listed (issue 40 item 18)
		out.Remembered = s.RememberContacts(id, out.Total)
	}
	if q.Limit > 0 && len(contacts) > q.Limit {
		contacts = contacts[:q.Limit]
	}
	out.Contacts = contacts
	return out, nil
}
