package console

import (
	"context"
	tea "github.com/charmbracelet/bubbletea"
	"log/slog"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/model"
)

// Profile is what the console shows and uses of the active profile.
type Profile struct {
	Name          string
	BaseURL       string
	Sender        string   // default sender line
	Senders       []string // the account's sender lines
	RatePerMinute int
	ChunkSize     int
	NumberFormat  model.NumberFormat
	// KeyKind is "live" or "test" (from the key's prefix), "" when unknown;
	// the send confirmation shows it.
	KeyKind string
	// Prices per SMS part by encoding, for the cost in the confirmation.
	Prices model.Prices
	// RepeatWindow is how far back a send is compared with this profile's
	// earlier sends for repeats; 0 turns the check off.
	RepeatWindow time.Duration
	// AllowInternational lets sends go to numbers outside Iran.
	AllowInternational bool
}

// GroupStore remembers the profile's known groups: the API cannot list groups,
// so the console keeps the ones it created or was told about.
type GroupStore interface {
	Groups() ([]model.Group, error)
	Track(g model.Group) error
	Untrack(id model.ID) error
	// Counts returns the contact counts remembered from earlier listings, by
	// group id (groups never listed are absent).
	Counts() (map[model.ID]int, error)
	// SetContacts remembers a group's contact count for the next start.
	SetContacts(id model.ID, n int) error
}

// common is the one shared context handed to every pane at construction: size,
// styles, keys, the client, logger and profile. It is never global.
type common struct {
	ctx     context.Context
	width   int
	height  int
	styles  *Styles
	theme   Theme
	keys    *KeyMap
	client  *client.Client // nil until the setup screen has produced one
	groups  GroupStore
	logger  *slog.Logger
	profile Profile
	now     func() time.Time
	spin    string // current spinner frame, for panes with work in flight
	// bidi is true while right-to-left text is reordered for display
	// (fitText); the bidi key switches it.
	bidi bool
	opts *Options

	// showModal and closeModal open and close a form or dialog at once (the
	// root owns the modal slot).
	showModal  func(modal) tea.Cmd
	closeModal func()
	// switchTo moves to another screen at once.
	switchTo func(screen) tea.Cmd
	// openViewer shows a text in full (a row's detail); esc comes back.
	openViewer func(title string, text []string) tea.Cmd
	// log adds a line to the message log (L).
	log func(text string)
	// work is the background work in flight, each piece with its owner's
	// id and context (worklog.go).
	work *workList
}

// host is the service host for the status bar.
func (c *common) host() string {
	return hostOf(c.profile.BaseURL)
}
