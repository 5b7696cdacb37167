package app

// The profile's known groups (the service cannot list groups, so smsdesk
// remembers the ones it created or was told about): read by every face,
// changed only here, with the role check and an audit record.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// KnownGroups are the groups the profile knows, in the order they were
// tracked, with their contact counts as last listed (-1 unknown). A
// damaged groups file is a *config.FileError naming it and the fix.
func (s *Session) KnownGroups() ([]config.KnownGroup, error) {
	return KnownGroupsOf(s.Paths, s.Profile.Name)
}

// KnownGroupsOf are profile's known groups in paths, read without a
// session (a shell's completion).
func KnownGroupsOf(paths config.Paths, profile string) ([]config.KnownGroup, error) {
	return config.LoadGroups(paths, profile)
}

// GroupID reads a group's id as the operator gave it: the service's group
// ids are integers ("12"; "012" is read as 12). A deployment with text ids
// still works for the groups this profile knows (made with groups create,
// whose answer gave the id). Anything else is RuleGroupID, before anything
// goes to the service: a typo is not a 404, nor a group tracked as "abc".
func (s *Session) GroupID(text string) (model.ID, error) {
	if id, ok := GroupNumber(text); ok {
		return id, nil
	}
	if t := strings.TrimSpace(text); t != "" && s.Profile.Name != "" {
		if known, err := s.KnownGroups(); err == nil {
			for _, g := range known {
				if g.ID.String() == t {
					return g.ID, nil
				}
			}
		}
	}
	return "", groupIDRefusal(text)
}

// GroupNumber reads text as the service's group id, an integer ("012" is
// 12): false when it is none (GroupID reads the profile's known ids too).
func GroupNumber(text string) (model.ID, bool) {
	t := strings.TrimSpace(text)
	if n, err := strconv.ParseUint(t, 10, 63); err == nil && n > 0 && !strings.HasPrefix(t, "+") {
		return model.ID(strconv.FormatUint(n, 10)), true
	}
	return "", false
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
// recorded in the audit trail. A known group keeps its place, and its name
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
	s.audit(ctx, config.AuditRecord{Action: "track_group", ID: id, Name: g.Name}, err)
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
// its contacts), recorded in the audit trail. found says whether the profile
// knew it.
func (s *Session) UntrackGroup(ctx context.Context, id model.ID) (found bool, err error) {
	if err := s.Allow(ActionUntrackGroup); err != nil {
		return false, err
	}
	found, err = config.UntrackGroup(s.Paths, s.Profile.Name, id)
	if found || err != nil {
		s.audit(ctx, config.AuditRecord{Action: "untrack_group", ID: id}, err)
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

// NewGroup is a group to create: its name and description (spaces around
// them are dropped, as the service drops them), and whether a name a known
// group has already may be used again.
type NewGroup struct {
	Name, Description string
	// AllowDuplicate creates it even when a known group has the name (the
	// CLI's --allow-duplicate, the console's yes to its question).
	AllowDuplicate bool
}

// CreateGroup creates a group on the service (admin role) and remembers it
// for the profile, recorded in the audit trail. Before any request it is
// refused (a *Refusal) for a name or description the service would refuse
// (RuleGroup, model.GroupNameProblem) and for a name a known group has
// (RuleDuplicate) unless g.AllowDuplicate: the service cannot list groups,
// so a second group of that name would be made without a word. A group the
// service made but this machine could not remember is returned with a
// *NotRemembered error: it exists, and tracking it later keeps it.
func (s *Session) CreateGroup(ctx context.Context, g NewGroup) (model.Group, error) {
	if err := s.Allow(ActionCreateGroup); err != nil {
		return model.Group{}, err
	}
	name, description := strings.TrimSpace(g.Name), strings.TrimSpace(g.Description)
	problem := model.GroupNameProblem(name)
	if problem == "" {
		problem = model.GroupDescriptionProblem(description)
	}
	if problem != "" {
		return model.Group{}, &Refusal{Rule: RuleGroup, Reason: problem + "; nothing was created"}
	}
	known, err := s.KnownGroups() // the duplicate check, and where the group will be remembered
	if err != nil {
		return model.Group{}, fmt.Errorf("%w; nothing was created", err)
	}
	if !g.AllowDuplicate {
		if r := s.duplicate(known, name); r != nil {
			return model.Group{}, r
		}
	}
	made, err := s.Client.CreateGroup(ctx, client.NewGroup{Name: name, Description: description})
	s.audit(ctx, config.AuditRecord{Action: "create_group", ID: made.ID, Name: name}, err)
	if err != nil {
		return made, err
	}
	if made.Name == "" {
		made.Name = name
	}
	if err := config.RememberCreatedGroup(s.Paths, s.Profile.Name, made); err != nil { // the service's name
		return made, &NotRemembered{Group: made, Err: err}
	}
	return made, nil
}

// duplicate is the refusal of a new group named as a known one, saying which
// and whose name it is: the service's, or a name for this machine given
// with groups track (which the service has never heard of). Names match
// whatever their case and the spaces around them.
func (s *Session) duplicate(known []config.KnownGroup, name string) *Refusal {
	same := func(a string) bool {
		return a != "" && strings.EqualFold(strings.TrimSpace(a), name)
	}
	profile := model.SanitizeLine(s.Profile.Name)
	for _, k := range known {
		var why string
		shown, service := model.SanitizeLine(k.Name), model.SanitizeLine(k.ServiceName)
		switch {
		case same(k.ServiceName) && !k.LocalName():
			why = fmt.Sprintf("profile %s already has a group named %q on the service: group %s", profile, shown, k.ID)
		case same(k.ServiceName):
			why = fmt.Sprintf("profile %s already has a group named %q on the service: group %s (shown here as %q)", profile, service, k.ID, shown)
		case same(k.Name) && k.ServiceName != "":
			why = fmt.Sprintf("profile %s already calls group %s %q, a name for this machine only (on the service it is %q)", profile, k.ID, shown, service)
		case same(k.Name):
			why = fmt.Sprintf("profile %s already calls group %s %q (its name on the service is not known to smsdesk)", profile, k.ID, shown)
		default:
			continue
		}
		k := k
		return &Refusal{Rule: RuleDuplicate, Reason: why + "; nothing was created", Known: &k, Name: model.SanitizeLine(name), Profile: profile}
	}
	return nil
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
