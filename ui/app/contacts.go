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
