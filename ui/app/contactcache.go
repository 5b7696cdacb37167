package app

// The console's cache of a group's contacts (names and numbers, per
// profile and service): shown at once when a group is opened again, while
// the fresh list loads; forgotten with the key (logout, a profile removed).

import (
	"time"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// CachedContacts are the group's contacts as last listed here (ok false:
// none kept, or not readable).
func (s *Session) CachedContacts(groupID model.ID) (c config.CachedContacts, ok bool) {
	return config.LoadCachedContacts(s.Paths, s.Profile.Name, s.Profile.BaseURL, groupID)
}

// CacheContacts keeps the group's contacts as listed at at.
func (s *Session) CacheContacts(groupID model.ID, contacts []model.Contact, at time.Time) error {
	return config.SaveCachedContacts(s.Paths, s.Profile.Name, s.Profile.BaseURL, groupID, contacts, at)
}

// UpdateCachedContacts applies a change (an add, a delete, an import) to
// the group's cached contacts, so that a reopen shows it at once.
func (s *Session) UpdateCachedContacts(groupID model.ID, change func([]model.Contact) []model.Contact) error {
	return config.UpdateCachedContacts(s.Paths, s.Profile.Name, s.Profile.BaseURL, groupID, change)
}

// ForgetCachedContacts removes every cached contact list of a profile:
// they go with its key.
func ForgetCachedContacts(paths config.Paths, profile string) error {
	return config.ForgetCachedContacts(paths, profile)
}
