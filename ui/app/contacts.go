package app

// A group's contacts changed one at a time, by every face, with the role
// check and an audit record (an import is import.go).

import (
	"context"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// AddContact adds one contact to a group (sender role), recorded with the
// operator in the audit file.
func (s *Session) AddContact(ctx context.Context, groupID model.ID, mobile, name string) (model.Contact, error) {
	if err := s.Allow(ActionAddContact); err != nil {
		return model.Contact{}, err
	}
	c, err := s.Client.AddContact(ctx, client.NewContact{GroupID: groupID, Mobile: mobile, Name: name})
	s.audit(config.AuditRecord{Action: "add_contact", GroupID: groupID, ID: c.ID, Mobile: mobile}, err)
	return c, err
}

// DeleteContact deletes one contact (admin role), recorded with the
// operator in the audit file.
func (s *Session) DeleteContact(ctx context.Context, groupID, id model.ID) error {
	if err := s.Allow(ActionDeleteContact); err != nil {
		return err
	}
	err := s.Client.DeleteContact(ctx, id)
	s.audit(config.AuditRecord{Action: "delete_contact", GroupID: groupID, ID: id}, err)
	return err
}
