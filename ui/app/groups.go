package app

// The profile's known groups (the service cannot list groups, so smsdesk
// remembers the ones it created or was told about): read by every face,
// changed only here, with the role check and an audit record.

import (
	"context"
	"errors"
	"fmt"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// KnownGroups are the groups the profile knows, in the order they were
// tracked, with their contact counts as last listed (-1 unknown). A
// damaged groups file is a *config.FileError naming it and the fix.
func (s *Session) KnownGroups() ([]config.KnownGroup, error) {
	return config.LoadGroups(s.Paths, s.Profile.Name)
}

// RememberContacts keeps a known group's contact count, as a complete
// listing found it, for the next start (no role: it is what was seen, not
// a change). A group the profile does not know is left alone.
func (s *Session) RememberContacts(id model.ID, n int) error {
	_, err := config.SetGroupContacts(s.Paths, s.Profile.Name, id, n)
	return err
}

// TrackGroup remembers a group made elsewhere (sender role): one request
// checks that the service has it, then it is added to the known groups
// under name, a name for this machine (the service cannot tell a group's),
// recorded in the audit file. A known group keeps its place, and its name
// when name is ""; a new one without a name is "group ID". It returns the
// group as the profile now knows it.
func (s *Session) TrackGroup(ctx context.Context, id model.ID, name string) (model.Group, error) {
	if err := s.Allow(ActionTrackGroup); err != nil {
		return model.Group{}, err
	}
	g := model.Group{ID: id, Name: name}
	known, err := s.KnownGroups()
	if err == nil {
		err = s.groupExists(ctx, id)
	}
	if err == nil {
		if k, ok := findGroup(known, id); ok && name == "" {
			g.Name = k.Name // kept as it was
		} else if name == "" {
			g.Name = "group " + id.String()
		}
		err = config.TrackGroup(s.Paths, s.Profile.Name, g)
	}
	s.audit(config.AuditRecord{Action: "track_group", ID: id, Name: g.Name}, err)
	if err != nil {
		return model.Group{}, err
	}
	return g, nil
}

// findGroup finds id among known groups.
func findGroup(known []config.KnownGroup, id model.ID) (config.KnownGroup, bool) {
	for _, k := range known {
		if k.ID == id {
			return k, true
		}
	}
	return config.KnownGroup{}, false
}

// UntrackGroup forgets a known group (sender role; the service keeps it and
// its contacts), recorded in the audit file. found says whether the profile
// knew it.
func (s *Session) UntrackGroup(id model.ID) (found bool, err error) {
	if err := s.Allow(ActionUntrackGroup); err != nil {
		return false, err
	}
	found, err = config.UntrackGroup(s.Paths, s.Profile.Name, id)
	if found || err != nil {
		s.audit(config.AuditRecord{Action: "untrack_group", ID: id}, err)
	}
	return found, err
}

// groupExists asks for the group's first page of contacts (one request):
// a 404 means there is no such group.
func (s *Session) groupExists(ctx context.Context, id model.ID) error {
	if s.Client == nil {
		return errors.New("not signed in: no key for this profile; nothing was tracked")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	seen := false
	_, err := s.Client.ListContacts(ctx, id, func(client.ListProgress) { seen = true; cancel() })
	switch {
	case seen:
		return nil
	case errors.Is(err, client.ErrNotFound):
		return fmt.Errorf("group %s does not exist on the service; nothing was tracked", model.SanitizeLine(id.String()))
	case err != nil:
		return fmt.Errorf("checking group %s: %w; nothing was tracked", model.SanitizeLine(id.String()), err)
	}
	return nil
}

// CreateGroup creates a group on the service (admin role) and remembers it
// for the profile, recorded in the audit file. A group the service made
// but this machine could not remember is returned with a *NotRemembered
// error: it exists, and tracking it later keeps it.
func (s *Session) CreateGroup(ctx context.Context, name, description string) (model.Group, error) {
	if err := s.Allow(ActionCreateGroup); err != nil {
		return model.Group{}, err
	}
	g, err := s.Client.CreateGroup(ctx, client.NewGroup{Name: name, Description: description})
	s.audit(config.AuditRecord{Action: "create_group", ID: g.ID, Name: name}, err)
	if err != nil {
		return g, err
	}
	if g.Name == "" {
		g.Name = name
	}
	if err := config.RememberCreatedGroup(s.Paths, s.Profile.Name, g); err != nil { // the service's name
		return g, &NotRemembered{Group: g, Err: err}
	}
	return g, nil
}

// NotRemembered is a group the service created that the known groups file
// could not take: it exists; `smsdesk groups track ID` (the console's t)
// remembers it.
type NotRemembered struct {
	Group model.Group
	Err   error
}

func (e *NotRemembered) Error() string {
	return fmt.Sprintf("group %s was created but could not be remembered: %v", model.SanitizeLine(e.Group.ID.String()), e.Err)
}

func (e *NotRemembered) Unwrap() error { return e.Err }
