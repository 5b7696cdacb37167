package console

import (
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// ConfigGroups is the GroupStore of a profile's known groups in the state
// directory (the same file `smsdesk groups track` writes).
func ConfigGroups(paths config.Paths, profile string) GroupStore {
	return configGroups{paths: paths, profile: profile}
}

type configGroups struct {
	paths   config.Paths
	profile string
}

func (s configGroups) Groups() ([]model.Group, error) {
	known, err := config.LoadGroups(s.paths, s.profile)
	if err != nil {
		return nil, err
	}
	out := make([]model.Group, len(known))
	for i, k := range known {
		out[i] = k.Group
	}
	return out, nil
}

func (s configGroups) Counts() (map[model.ID]int, error) {
	known, err := config.LoadGroups(s.paths, s.profile)
	if err != nil {
		return nil, err
	}
	out := make(map[model.ID]int, len(known))
	for _, k := range known {
		if k.Contacts >= 0 {
			out[k.ID] = k.Contacts
		}
	}
	return out, nil
}

// SetContacts records the count in the groups file (config.SetGroupContacts);
// a group the profile does not know is left alone.
func (s configGroups) SetContacts(id model.ID, n int) error {
	_, err := config.SetGroupContacts(s.paths, s.profile, id, n)
	return err
}

func (s configGroups) Track(g model.Group) error { return config.TrackGroup(s.paths, s.profile, g) }

func (s configGroups) Untrack(id model.ID) error {
	_, err := config.UntrackGroup(s.paths, s.profile, id)
	return err
}
