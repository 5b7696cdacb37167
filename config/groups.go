package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// groupsFileVersion is the format of StateDir/groups/<profile>.json.
const groupsFileVersion = 1

// KnownGroup is a group smsdesk remembers for a profile, because the API cannot
// list groups.
type KnownGroup struct {
	model.Group
	// ServiceName is the group's name as the service gave it (when smsdesk
	// created the group); "" when smsdesk was never told it: the service
	// cannot show a group. Name is what smsdesk shows, which `groups track
	// --name` may set to a local name of its own.
	ServiceName string
	Contacts    int       // contact count when last seen; -1 when unknown
	AddedAt     time.Time // when the group was first tracked
}

// LocalName reports whether the name shown is smsdesk's own, not the
// service's (or whether the service's is not known).
func (g KnownGroup) LocalName() bool { return g.ServiceName != g.Name }

// groupsFile is the on-disk form.
type groupsFile struct {
	Version int           `json:"version"`
	Groups  []groupRecord `json:"groups"`
}

type groupRecord struct {
	ID          model.ID  `json:"id"`
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	ServiceName string    `json:"service_name,omitempty"`
	Contacts    *int      `json:"contacts,omitempty"`
	AddedAt     time.Time `json:"added_at"`
}

// GroupsFile is the file holding a profile's known groups:
// StateDir/groups/<profile>.json. Each profile has its own file so a corrupt
// one never costs the others.
func (p Paths) GroupsFile(profile string) (string, error) {
	if err := ValidateProfileName(profile); err != nil {
		return "", err
	}
	return filepath.Join(p.GroupsDir(), profile+".json"), nil
}

// LoadGroups returns the groups the profile knows, in the order they were
// tracked. No file means no groups. A corrupt file is a *FileError naming the
// file and how to recover.
func LoadGroups(p Paths, profile string) ([]KnownGroup, error) {
	path, err := p.GroupsFile(profile)
	if err != nil {
		return nil, err
	}
	return readGroups(path)
}

// TrackGroup remembers g for the profile under the name g gives (a name of
// smsdesk's own: the service's stays whatever it was): a new id is appended,
// a known one is updated in place (a blank name or description keeps the one
// remembered).
func TrackGroup(p Paths, profile string, g model.Group) error {
	return trackGroup(p, profile, g, false)
}

// RememberCreatedGroup remembers g as the service answered it (a group just
// created, or one whose name the service told): its name is the service's.
func RememberCreatedGroup(p Paths, profile string, g model.Group) error {
	return trackGroup(p, profile, g, true)
}

func trackGroup(p Paths, profile string, g model.Group, fromService bool) error {
	if g.ID.IsZero() {
		return errors.New("tracking a group: the id is empty")
	}
	return updateGroups(p, profile, func(list []KnownGroup) ([]KnownGroup, bool) {
		for i := range list {
			if list[i].ID == g.ID {
				if g.Name != "" {
					list[i].Name = g.Name
					if fromService {
						list[i].ServiceName = g.Name
					}
				}
				if g.Description != "" {
					list[i].Description = g.Description
				}
				return list, true
			}
		}
		k := KnownGroup{Group: g, Contacts: -1, AddedAt: time.Now().UTC().Round(time.Second)}
		if fromService {
			k.ServiceName = g.Name
		}
		return append(list, k), true
	})
}

// UntrackGroup forgets a group; it reports whether the profile knew it.
func UntrackGroup(p Paths, profile string, id model.ID) (bool, error) {
	found := false
	err := updateGroups(p, profile, func(list []KnownGroup) ([]KnownGroup, bool) {
		for i := range list {
			if list[i].ID == id {
				found = true
				return append(list[:i], list[i+1:]...), true
			}
		}
		return list, false
	})
	return found, err
}

// SetGroupContacts records a known group's contact count (after listing it); it
// reports whether the profile knew the group.
func SetGroupContacts(p Paths, profile string, id model.ID, n int) (bool, error) {
	found := false
	err := updateGroups(p, profile, func(list []KnownGroup) ([]KnownGroup, bool) {
		for i := range list {
			if list[i].ID == id {
				found = true
				changed := list[i].Contacts != n
				list[i].Contacts = n
				return list, changed
			}
		}
		return list, false
	})
	return found, err
}

// updateGroups runs a read-modify-write of one profile's file under its lock.
// A corrupt file is never overwritten.
func updateGroups(p Paths, profile string, modify func([]KnownGroup) ([]KnownGroup, bool)) error {
	path, err := p.GroupsFile(profile)
	if err != nil {
		return err
	}
	return rewriteUnderLock(path, readGroups, func(list []KnownGroup) ([]KnownGroup, bool, error) {
		list, changed := modify(list)
		return list, changed, nil
	}, groupsOnDisk)
}

func groupsRecovery(path string) string {
	return fmt.Sprintf("move it aside (mv %s %s.bad); `smsdesk groups track ID` re-adds groups; other profiles are not affected", path, path)
}

func readGroups(path string) ([]KnownGroup, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading known groups %s: %w", path, err)
	}
	corrupt := func(line int, problem string, err error) error {
		return &FileError{Path: path, Line: line, Problem: problem, Recovery: groupsRecovery(path), Err: err}
	}
	var f groupsFile
	if err := json.Unmarshal(data, &f); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, corrupt(lineOf(data, se.Offset), "not valid JSON: "+se.Error(), err)
		case errors.As(err, &te):
			return nil, corrupt(lineOf(data, te.Offset), "unexpected JSON: "+te.Error(), err)
		}
		return nil, corrupt(0, "not valid JSON: "+err.Error(), err)
	}
	if f.Version != groupsFileVersion {
		return nil, corrupt(0, fmt.Sprintf("format version %d, this smsdesk reads version %d", f.Version, groupsFileVersion), nil)
	}
	list := make([]KnownGroup, 0, len(f.Groups))
	for i, r := range f.Groups {
		if r.ID.IsZero() {
			return nil, corrupt(0, fmt.Sprintf("group %d has no id", i+1), nil)
		}
		contacts := -1
		if r.Contacts != nil {
			contacts = *r.Contacts
		}
		list = append(list, KnownGroup{
			Group:       model.Group{ID: r.ID, Name: r.Name, Description: r.Description},
			ServiceName: r.ServiceName,
			Contacts:    contacts,
			AddedAt:     r.AddedAt,
		})
	}
	return list, nil
}

// groupsOnDisk is the known groups as the file holds them.
func groupsOnDisk(list []KnownGroup) any {
	f := groupsFile{Version: groupsFileVersion, Groups: make([]groupRecord, 0, len(list))}
	for _, g := range list {
		r := groupRecord{ID: g.ID, Name: g.Name, Description: g.Description, ServiceName: g.ServiceName, AddedAt: g.AddedAt}
		if g.Contacts >= 0 {
			n := g.Contacts
			r.Contacts = &n
		}
		f.Groups = append(f.Groups, r)
	}
	return f
}
