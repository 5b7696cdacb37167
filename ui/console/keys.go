package console

import (
	"slices"

	"charm.land/bubbles/v2/key"

	"github.com/smsdesk/smsdesk/ui/app"
)

// ActionKey is a key that starts an action an operator's role may not
// allow (on a served console): it carries that action, so that the footer
// offers the key only to operators whose role allows it, and the key,
// pressed, is refused naming the role it needs (app.Session.Allow).
type ActionKey struct {
	key.Binding
	Action app.Action
}

// is reports whether b is this key's binding (the same keys and help).
func (k ActionKey) is(b key.Binding) bool {
	return slices.Equal(k.Keys(), b.Keys()) && k.Help() == b.Help()
}

// KeyMap holds every key binding of the console. The footer and the `?` screen
// are both rendered from these bindings, so help never drifts from behaviour.
type KeyMap struct {
	NextPane key.Binding
	PrevPane key.Binding
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Enter    key.Binding
	// NewGroup and NewContact are one key (n), each pane's own action.
	NewGroup   ActionKey
	NewContact ActionKey
	Track      ActionKey
	Untrack    ActionKey
	Delete     ActionKey
	OptOut     ActionKey // the selected contact on or off the opt-out list
	Filter     key.Binding
	Back       key.Binding
	Import     ActionKey
	Export     ActionKey
	Refresh    key.Binding
	Compose    ActionKey
	Send       key.Binding
	History    key.Binding
	Inbox      key.Binding // what recipients wrote back
	Help       key.Binding
	Bidi       key.Binding // right-to-left text: as written or reordered
	Log        key.Binding // the message log
	Copy       key.Binding // OSC 52 copy of what is under the cursor
	Redraw     key.Binding
	Suspend    key.Binding
	Quit       key.Binding
	ForceQuit  key.Binding

	// StopImport stops the shown group's import after its row in flight.
	StopImport key.Binding

	// Composer.
	Sender    key.Binding
	AddRow    key.Binding
	EditRow   key.Binding
	RemoveRow key.Binding
	Template  key.Binding
	LoadCSV   key.Binding

	// Results.
	Failures key.Binding
	Cancel   key.Binding
	Retry    ActionKey

	// History.
	Resume ActionKey
	// CancelScheduled cancels a scheduled send before its time (asks first).
	CancelScheduled ActionKey
	// ResendFailed sends again, as a new send, the messages of the opened
	// send whose delivery failed (asks first, as any send).
	ResendFailed ActionKey
	// AllProfiles switches the history between this profile's sends and
	// every profile's.
	AllProfiles key.Binding

	// Inbox: Reply answers the message under the cursor (a send of one).
	Reply ActionKey

	// Text fields: while one has focus these are the only keys that do not
	// type, and the footer lists only them.
	LeaveField key.Binding // the composer's editor and sender field, setup's fields
	UseSender  key.Binding // the composer's sender field

	// Forms and dialogs.
	CancelForm key.Binding
	Submit     key.Binding
	NextField  key.Binding
	PrevField  key.Binding
	Yes        key.Binding
	No         key.Binding
	// TypeCount and YesTyped are a question's keys when y alone does not
	// answer it (the repeat of an earlier send): the count is typed, then
	// enter.
	TypeCount key.Binding
	YesTyped  key.Binding
	Switch    key.Binding // a dialog's choice between its buttons
	// SendAt, in a send's confirmation, schedules it for a time asked
	// instead of sending it now.
	SendAt key.Binding

	// Screens' own footers.
	GoBack      key.Binding // leave a screen (history, composer, results)
	CloseHelp   key.Binding
	StoreInFile key.Binding // setup, when the keyring cannot be used
}

// DefaultKeyMap returns the default bindings listed in the operator's guide.
func DefaultKeyMap() *KeyMap {
	b := func(help string, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	gate := func(a app.Action, help string, desc string, keys ...string) ActionKey {
		return ActionKey{Binding: b(help, desc, keys...), Action: a}
	}
	return &KeyMap{
		NextPane:   b("tab", "next pane", "tab"),
		PrevPane:   b("shift+tab", "previous pane", "shift+tab"),
		Up:         b("↑/k", "up", "up", "k"),
		Down:       b("↓/j", "down", "down", "j"),
		PageUp:     b("pgup", "page up", "pgup", "ctrl+u"),
		PageDown:   b("pgdn", "page down", "pgdown", "ctrl+d"),
		Top:        b("home/g", "top", "home", "g"),
		Bottom:     b("end/G", "bottom", "end", "G"),
		Enter:      b("enter", "open", "enter"),
		NewGroup:   gate(app.ActionCreateGroup, "n", "new", "n"),
		NewContact: gate(app.ActionAddContact, "n", "new", "n"),
		Track:      gate(app.ActionTrackGroup, "t", "track group by id", "t"),
		Untrack:    gate(app.ActionUntrackGroup, "u", "untrack group", "u"),
		Delete:     gate(app.ActionDeleteContact, "d", "delete contact", "d"),
		OptOut:     gate(app.ActionOptOut, "o", "opt out/in", "o"),
		Filter:     b("/", "filter", "/"),
		Back:       b("esc", "back/clear", "esc"),
		Import:     gate(app.ActionImport, "i", "import CSV", "i"),
		Export:     gate(app.ActionExport, "e", "export CSV", "e"),
		Refresh:    b("r", "refresh", "r"),
		Compose:    gate(app.ActionSend, "c", "compose", "c"),
		Send:       b("ctrl+s", "send", "ctrl+s"),
		History:    b("h", "history", "h"),
		Inbox:      b("I", "inbox", "I"),
		Help:       b("?", "help", "?"),
		Bidi:       b("B", "RTL order", "B"),
		Log:        b("L", "message log", "L"),
		Copy:       b("y", "copy (OSC 52)", "y"),
		Redraw:     b("ctrl+l", "redraw", "ctrl+l"),
		Suspend:    b("ctrl+z", "suspend", "ctrl+z"),
		Quit:       b("q", "quit", "q"),
		ForceQuit:  b("ctrl+c", "quit", "ctrl+c"),

		StopImport: b("esc", "stop import", "esc"),

		Sender:    b("s", "sender line", "s"),
		AddRow:    b("a", "add row", "a"),
		EditRow:   b("enter", "edit row", "enter"),
		RemoveRow: b("x", "remove row", "x", "delete"),
		Template:  b("m", "message template", "m"),
		LoadCSV:   b("o", "open pairs CSV", "o"),

		Failures: b("f", "not accepted", "f"),
		Cancel:   b("esc", "cancel send", "esc"),
		Retry:    gate(app.ActionSend, "R", "retry failed", "R"),

		Resume:          gate(app.ActionResume, "R", "resume send", "R"),
		CancelScheduled: gate(app.ActionSend, "x", "cancel scheduled", "x"),
		ResendFailed:    gate(app.ActionSend, "F", "resend not delivered", "F"),
		AllProfiles:     b("a", "all profiles", "a"),

		Reply: gate(app.ActionSend, "R", "reply", "R"),

		LeaveField: b("esc/ctrl+c", "leave field", "esc", "ctrl+c"),
		UseSender:  b("enter", "use this sender", "enter"),

		CancelForm: b("esc", "cancel form", "esc"),
		Submit:     b("enter", "submit", "enter"),
		NextField:  b("tab", "next field", "tab"),
		PrevField:  b("shift+tab", "previous field", "shift+tab"),
		Yes:        b("y", "yes", "y"),
		No:         b("n/esc", "no", "n", "N", "esc"),
		TypeCount:  b("0-9", "type the count", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"),
		YesTyped:   b("enter", "yes, once typed", "enter"),
		Switch:     b("tab", "switch", "tab", "shift+tab", "left", "right"),
		SendAt:     b("t", "at a time…", "t"),

		GoBack:      b("esc", "back", "esc"),
		CloseHelp:   b("esc/?/q", "close help", "esc", "?", "q"),
		StoreInFile: b("f", "store in a 0600 file", "f"),
	}
}

// globalHelp is the part of the footer shared by every screen.
func (k *KeyMap) globalHelp() []key.Binding {
	return []key.Binding{k.NextPane, k.Compose.Binding, k.History, k.Help, k.Quit}
}

// ShortHelp implements help.KeyMap for the global keys.
func (k *KeyMap) ShortHelp() []key.Binding { return k.globalHelp() }

// HelpSection is one titled group of keys on the `?` screen and in the
// README: where the keys work.
type HelpSection struct {
	Title    string
	Bindings []key.Binding
}

// Sections lists every binding once, grouped by where it works.
func (k *KeyMap) Sections() []HelpSection {
	return []HelpSection{
		{"Everywhere", []key.Binding{k.NextPane, k.PrevPane, k.Compose.Binding, k.History, k.Inbox, k.Log, k.Copy, k.Bidi, k.Redraw, k.Suspend, k.Help, k.Quit, k.ForceQuit}},
		{"Lists", []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Enter, k.Filter, k.Back, k.Refresh}},
		{"Groups and contacts", []key.Binding{k.NewGroup.Binding, k.Track.Binding, k.Untrack.Binding, k.Delete.Binding, k.OptOut.Binding, k.Import.Binding, k.StopImport, k.Export.Binding}},
		{"Composer", []key.Binding{k.Sender, k.Template, k.LoadCSV, k.AddRow, k.RemoveRow, k.Send, k.UseSender}},
		{"Results", []key.Binding{k.Failures, k.Cancel, k.Retry.Binding}},
		{"History", []key.Binding{k.Resume.Binding, k.CancelScheduled.Binding, k.ResendFailed.Binding, k.AllProfiles}},
		{"Inbox", []key.Binding{k.Reply.Binding}},
		{"Forms and dialogs", []key.Binding{k.Submit, k.NextField, k.PrevField, k.LeaveField, k.CancelForm, k.Yes, k.No, k.SendAt}},
	}
}

// FullHelp implements help.KeyMap: the sections' bindings.
func (k *KeyMap) FullHelp() [][]key.Binding {
	var out [][]key.Binding
	for _, s := range k.Sections() {
		out = append(out, s.Bindings)
	}
	return out
}
