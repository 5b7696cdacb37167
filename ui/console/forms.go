package console

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/ui/app"
)

func required(what string) func(string) error {
	return func(s string) error {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("enter %s", what)
		}
		return nil
	}
}

// problem makes a model rule (the words the application layer refuses
// with, on every face) a field's check, as it is typed.
func problem(check func(string) string) func(string) error {
	return func(s string) error {
		if p := check(s); p != "" {
			return errors.New(p)
		}
		return nil
	}
}

// fieldLimit is how many characters a field whose service limit is n
// takes: more than n, so that a longer text (pasted) is refused in the
// service's words, not cut without a word.
func fieldLimit(n int) int { return 4 * n }

// newGroupForm asks for a new group's name and optional description.
func newGroupForm(c *common, p *groupsPane) *form {
	return newForm(c, "New group", "The group is created on the service and remembered for this profile.",
		func(v []string) (tea.Cmd, error) {
			return p.createGroup(app.NewGroup{Name: v[0], Description: v[1]}), nil
		},
		textField("Name", "e.g. Customers Tehran", fieldLimit(model.MaxGroupName), problem(model.GroupNameProblem)),
		textField("Description", "optional", fieldLimit(model.MaxGroupDescription), problem(model.GroupDescriptionProblem)),
	)
}

// trackGroupForm remembers a group made elsewhere (the API cannot list groups).
func trackGroupForm(c *common, p *groupsPane) *form {
	return newForm(c, "Track a group by id", "For a group created elsewhere: the API cannot list groups.",
		func(v []string) (tea.Cmd, error) {
			name := v[1]
			if name == "" {
				name = "group " + v[0]
			}
			return p.trackGroup(model.ID(v[0]), name), nil
		},
		textField("Group id", "e.g. 42", 64, func(s string) error {
			if err := required("the group's id")(s); err != nil {
				return err
			}
			if strings.ContainsAny(s, " /\\?#") {
				return errors.New("an id has no spaces or slashes")
			}
			return nil
		}),
		textField("Name", "optional, for this list", fieldLimit(model.MaxGroupName), problem(func(s string) string {
			if s == "" {
				return ""
			}
			return model.GroupNameProblem(s)
		})),
	)
}

// newContactForm asks for the mobile first, then the name; each is checked
// as the application layer checks it (the mobile normalised, and explained
// when rejected) before anything is sent.
func newContactForm(c *common, p *contactsPane) *form {
	opts := model.ImportOptions{Format: c.profile.NumberFormat, AllowInternational: c.profile.AllowInternational}
	return newForm(c, "New contact in "+p.group.Name, "Mobile in any common form: 0912…, +98912…, Persian digits.",
		func(v []string) (tea.Cmd, error) {
			mobile, problem := model.ContactMobileProblem(v[0], opts)
			if problem != "" {
				return nil, errors.New(problem)
			}
			return p.addContact(mobile, v[1]), nil
		},
		textField("Mobile", "09121234567", 32, func(s string) error {
			if err := required("a mobile number")(s); err != nil {
				return err
			}
			if _, p := model.ContactMobileProblem(s, opts); p != "" {
				return errors.New(p)
			}
			return nil
		}),
		textField("Name", "optional", fieldLimit(model.MaxContactName), problem(model.ContactNameProblem)),
	)
}

// importForm asks for a contacts CSV (mobile[,name]) to add to the open group.
func importForm(c *common, p *contactsPane) *form {
	g := p.group
	return newFileForm(c, "Import contacts into "+g.Name,
		"CSV with mobile and optional name columns (header optional; , ; tab or ؛).",
		func(v []string) func() (tea.Msg, error) {
			return func() (tea.Msg, error) { return readContactsFile(c, g.ID, v[0]) }
		},
		textField("File", "contacts.csv", 1024, required("a file path")),
	)
}

// exportForm asks where to write the open group's contacts as CSV.
func exportForm(c *common, p *contactsPane) *form {
	f := newFileForm(c, "Export contacts", "Writes mobile,name,id for every contact of the group (file mode 0600).",
		func(v []string) func() (tea.Msg, error) {
			contacts, gid := p.allContacts(), p.group.ID
			return func() (tea.Msg, error) {
				path, err := c.filePath(v[0])
				if err != nil {
					return nil, err
				}
				n, err := c.session.ExportContacts(c.ctx, gid, contacts, path)
				if err != nil {
					return nil, err // said in the form, which stays open for another name
				}
				return exportDoneMsg{What: "contacts", Path: path, Rows: n}, nil
			}
		},
		textField("File", "contacts.csv", 1024, required("a file path")),
	)
	f.prefill(0, fmt.Sprintf("group-%s-contacts.csv", safeName(string(p.group.ID))))
	return f
}

// filePath is the file a name typed in a form refers to: with a leading ~/
// expanded; with Options.FilesDir, a relative name inside that directory
// only (no absolute path, no .., no symbolic link out of it).
func (c *common) filePath(name string) (string, error) {
	dir := c.opts.FilesDir
	if dir == "" {
		return c.expandHome(name), nil
	}
	outside := fmt.Errorf("%s: files here are the server's, in its files directory only; give a name inside it (no /, no ..)", model.SanitizeLine(name))
	if !filepath.IsLocal(name) || strings.HasPrefix(name, "~") { // ~ would be the server's home
		return "", outside
	}
	path := filepath.Join(dir, name)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		root, rerr := filepath.EvalSymlinks(dir)
		if rel, err := filepath.Rel(root, real); rerr != nil || err != nil || !filepath.IsLocal(rel) {
			return "", outside
		}
	}
	return path, nil
}

// shownPath is a file's path as the operator is shown it: with
// Options.FilesDir (a served console), its name inside that directory, as
// they would type it; the server's absolute paths are not theirs to see.
func (c *common) shownPath(path string) string {
	dir := c.opts.FilesDir
	if dir == "" {
		return path
	}
	if rel, err := filepath.Rel(dir, path); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return path
}

// shownErr is err as the operator is shown it: with Options.FilesDir, the
// files directory's absolute path is taken out of its words (what it wraps
// is unchanged, for errors.As).
func (c *common) shownErr(err error) error {
	dir := c.opts.FilesDir
	if err == nil || dir == "" || !strings.Contains(err.Error(), dir) {
		return err
	}
	text := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
	return &shownError{text: strings.ReplaceAll(text, dir, "the files directory"), err: err}
}

// shownError is an error with other words for the same cause.
type shownError struct {
	text string
	err  error
}

func (e *shownError) Error() string { return e.text }
func (e *shownError) Unwrap() error { return e.err }

// expandHome turns a leading ~/ into the home directory (Options.HomeDir).
func (c *common) expandHome(path string) string {
	if home := c.opts.HomeDir; home != "" && strings.HasPrefix(path, "~/") {
		return filepath.Join(home, path[2:])
	}
	return path
}

// safeName keeps only characters that are safe in a file name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}
