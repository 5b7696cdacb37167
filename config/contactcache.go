package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// The console shows a group's contacts at once when it opens the group again,
// from a cache in the state directory, and refreshes it in the background
// (stale-while-revalidate). A cache is only a copy: a file that cannot be read,
// from another format version or for another service (base URL) is a miss,
// never an error, and the next list rewrites it. The files hold names and
// numbers, so they are 0600 in a 0700 directory, like every state file.

// contactCacheVersion is the format of StateDir/cache/<profile>/<group>.json.
const contactCacheVersion = 1

// CachedContacts is a group's contacts as last listed.
type CachedContacts struct {
	Contacts []model.Contact
	SavedAt  time.Time
}

type contactCacheFile struct {
	Version  int             `json:"version"`
	BaseURL  string          `json:"base_url"`
	GroupID  model.ID        `json:"group_id"`
	SavedAt  time.Time       `json:"saved_at"`
	Contacts []model.Contact `json:"contacts"`
}

// ContactCacheFile is where a group's cached contacts live. The group id is
// hashed into the name, so any id the service issues makes a safe file name.
func (p Paths) ContactCacheFile(profile string, groupID model.ID) (string, error) {
	if err := ValidateProfileName(profile); err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(groupID))
	return filepath.Join(p.StateDir, "cache", profile, "group-"+hex.EncodeToString(sum[:8])+".json"), nil
}

// LoadCachedContacts returns the cached contacts of a group for the profile
// and base URL; ok is false on any miss.
func LoadCachedContacts(p Paths, profile, baseURL string, groupID model.ID) (c CachedContacts, ok bool) {
	path, err := p.ContactCacheFile(profile, groupID)
	if err != nil {
		return c, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return c, false
	}
	var f contactCacheFile
	if json.Unmarshal(data, &f) != nil || f.Version != contactCacheVersion || f.BaseURL != baseURL || f.GroupID != groupID {
		return c, false
	}
	return CachedContacts{Contacts: f.Contacts, SavedAt: f.SavedAt}, true
}

// SaveCachedContacts replaces the group's cache with contacts, as listed at.
func SaveCachedContacts(p Paths, profile, baseURL string, groupID model.ID, contacts []model.Contact, at time.Time) error {
	path, err := p.ContactCacheFile(profile, groupID)
	if err != nil {
		return err
	}
	if contacts == nil {
		contacts = []model.Contact{}
	}
	data, err := json.Marshal(contactCacheFile{Version: contactCacheVersion, BaseURL: baseURL, GroupID: groupID,
		SavedAt: at.UTC(), Contacts: contacts})
	if err != nil {
		return fmt.Errorf("encoding the contacts cache: %w", err)
	}
	return WriteFileAtomic(path, data, 0o600)
}

// UpdateCachedContacts changes a group's cache in place after an add, a
// delete or an import, so a reopen shows it at once. No cache: nothing to do.
func UpdateCachedContacts(p Paths, profile, baseURL string, groupID model.ID, change func([]model.Contact) []model.Contact) error {
	path, err := p.ContactCacheFile(profile, groupID)
	if err != nil {
		return err
	}
	return underLock(path, func() error {
		c, ok := LoadCachedContacts(p, profile, baseURL, groupID)
		if !ok {
			return nil
		}
		return SaveCachedContacts(p, profile, baseURL, groupID, change(c.Contacts), c.SavedAt)
	})
}

// ForgetCachedContacts removes every cached group of the profile (logout,
// profile removal).
func ForgetCachedContacts(p Paths, profile string) error {
	if err := ValidateProfileName(profile); err != nil {
		return err
	}
	err := os.RemoveAll(filepath.Join(p.StateDir, "cache", profile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing the contacts cache: %w", err)
	}
	return nil
}
