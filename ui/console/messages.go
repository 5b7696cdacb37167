package console

import (
	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

// failing is implemented by data messages that may carry an error; the root
// copies such errors into the status bar while the owning pane shows them in place.
type failing interface{ failure() error }

// backgroundMsg is implemented by data messages that may come of work the
// operator did not ask for just now (a list read again after a change
// elsewhere): their success is no reason to clear the status bar's error,
// which the operator may not have read yet.
type backgroundMsg interface{ background() bool }

// clearsError reports whether msg, a success, clears the last error.
func clearsError(msg tea.Msg) bool {
	if _, note := msg.(statusMsg); note {
		return false
	}
	b, ok := msg.(backgroundMsg)
	return !ok || !b.background()
}

// groupsLoadedMsg answers loading the known groups from the store.
type groupsLoadedMsg struct {
	Groups []model.Group
	Counts map[model.ID]int // remembered contact counts
	Err    error
}

func (m groupsLoadedMsg) failure() error { return m.Err }

// groupCreatedMsg answers creating a group (Track says it was tracked by
// id); Asked is the group asked for, for the question a refusal may ask.
type groupCreatedMsg struct {
	Group model.Group
	Track bool
	Asked app.NewGroup
	Err   error
	work  int // the create's work id (0: tracked, no request)
}

func (m groupCreatedMsg) failure() error { return m.Err }

// groupSelectedMsg asks the contacts pane to show a group.
type groupSelectedMsg struct{ Group model.Group }

// contactsProgressMsg reports a page of a list in flight, tagged by group and load id.
type contactsProgressMsg struct {
	GroupID  model.ID
	LoadID   int
	Progress client.ListProgress
	next     tea.Cmd
}

// contactsCachedMsg brings a group's contacts from the cache (OK false: none),
// tagged by group and load id.
type contactsCachedMsg struct {
	GroupID model.ID
	LoadID  int
	Cached  config.CachedContacts
	OK      bool
}

// contactsLoadedMsg answers listing a group's contacts, tagged by group and load id.
type contactsLoadedMsg struct {
	GroupID  model.ID
	LoadID   int
	Contacts []model.Contact
	Err      error
}

func (m contactsLoadedMsg) failure() error { return m.Err }

// contactCountMsg tells the groups pane how many contacts a group has. Final
// counts (a whole listing, or one after an add, delete or import) are also
// remembered in the group store; a total announced by the service while pages
// are still loading is only shown.
type contactCountMsg struct {
	GroupID model.ID
	Count   int
	Final   bool
}

// contactAddedMsg answers adding one contact.
type contactAddedMsg struct {
	GroupID model.ID
	Contact model.Contact
	Err     error
	work    int
}

func (m contactAddedMsg) failure() error { return m.Err }

// contactDeletedMsg answers deleting one contact.
type contactDeletedMsg struct {
	GroupID   model.ID
	ContactID model.ID
	Err       error
	work      int
}

func (m contactDeletedMsg) failure() error { return m.Err }

// importProgressMsg reports an import in flight.
type importProgressMsg struct {
	GroupID model.ID
	Done    int
	Failed  int
	total   int
	next    tea.Cmd
	work    int // the import's work id
}

// importDoneMsg ends an import: how many rows were added, and which failed why.
type importDoneMsg struct {
	GroupID   model.ID
	GroupName string
	Path      string // the file imported
	Added     int
	Already   int      // skipped: already in the group
	Invalid   int      // refused before anything was added (bad number, duplicate in the file…)
	Failures  []string // one line per invalid or failed row
	Stopped   string   // why the import stopped early when the operator stopped it
	Err       error
	work      int // the import's work id (0: it ended at its check)
}

func (m importDoneMsg) failure() error { return m.Err }

// exportDoneMsg answers writing a CSV file.
type exportDoneMsg struct {
	What string
	Path string
	Rows int
	Err  error
}

func (m exportDoneMsg) failure() error { return m.Err }

// statusMsg puts a note (or an error) in the status bar.
type statusMsg struct {
	Text string
	Err  error
}

func (m statusMsg) failure() error { return m.Err }

func cmdOf(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// retryRunMsg asks to resume this session's send JobID for its items
// certainly not sent (the results screen's R).
type retryRunMsg struct{ JobID string }
