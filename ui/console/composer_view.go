package console

import (
	"errors"
	"fmt"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
)

// composerMsg carries an edit for the composer: a typed or edited row, or the
// rows of a pairs file.
type composerMsg struct {
	Row     *model.PairRow
	RowAt   int // index of the edited row; -1 appends
	Pairs   []model.PairRow
	CSVPath string
	Layout  model.PairsLayout // how the file's columns were read
	Err     error
}

func (m composerMsg) failure() error { return m.Err }

func (p *composerPane) apply(msg composerMsg) tea.Cmd {
	p.later = nil // other rows: ctrl+s asks of them again
	switch {
	case msg.Err != nil:
		p.note = "✗ " + errorLine(msg.Err)
		return nil
	case msg.Row != nil:
		p.toManual()
		if msg.RowAt >= 0 && msg.RowAt < len(p.rows) {
			p.rows[msg.RowAt] = *msg.Row
			p.cursor = msg.RowAt
		} else {
			p.rows = append(p.rows, *msg.Row)
			p.cursor = len(p.rows) - 1
		}
		p.replan()
	case msg.Pairs != nil:
		p.source, p.csvPath, p.csvLayout, p.reply = sourceCSV, msg.CSVPath, msg.Layout, nil
		p.editor.Blur()
		p.rows = msg.Pairs
		p.cursor, p.offset = 0, 0
		p.note = fmt.Sprintf("%d rows from %s · %s", len(msg.Pairs), msg.CSVPath, msg.Layout)
		p.replan()
	default:
		return nil
	}
	return p.lookupOptOuts() // new rows: who of them is on the list
}

// pairsFileForm asks for a pairs CSV (recipient,message) to compose from,
// and for its columns' names when it has no header. The columns as read
// are shown with the rows (and in the confirmation); a file without a
// header whose second column reads like names is refused, as the CLI
// refuses it, unless its columns are named here.
func pairsFileForm(c *common) *form {
	return newFileForm(c, "Open a pairs CSV", "A header row names the columns (mobile, message); without one, name them below (mobile,message). Separated by , ; tab or ؛. Bad rows are named by line. One message for every contact: import the file (i) and write a template (m).",
		func(v []string) func() (tea.Msg, error) {
			return func() (tea.Msg, error) { return readPairsFile(c, v[0], columnNames(v[1])) }
		},
		textField("File", "pairs.csv", 1024, required("a file path")),
		textField("Columns", "only when it has no header: mobile,message", 200, nil),
	)
}

// readPairsFile reads the pairs file name (a form's words) for the
// composer, off the UI loop.
func readPairsFile(c *common, name string, columns []string) (tea.Msg, error) {
	path, err := c.filePath(name)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", name, err)
	}
	defer func() { _ = f.Close() }() // read only: a close error loses nothing
	var rows []model.PairRow
	lay, err := model.ReadPairsWith(f, model.PairsOptions{Columns: columns}, func(r model.PairRow) error { rows = append(rows, r); return nil })
	switch {
	case errors.Is(err, model.ErrLooksLikeContacts):
		return nil, fmt.Errorf("%w; name the columns below (mobile,message) if column 2 is each row's message", model.NameCSVError(err, name))
	case err != nil:
		return nil, model.NameCSVError(err, name)
	case len(rows) == 0:
		return nil, fmt.Errorf("%s has no rows", name)
	}
	return composerMsg{Pairs: rows, CSVPath: name, Layout: lay}, nil
}

// columnNames splits "mobile, message" into names; none for "".
func columnNames(s string) []string {
	var out []string
	for _, n := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == '؛' || r == '\t' }) {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// rowForm adds (at < 0) or edits one row by hand: recipient, then message.
func rowForm(c *common, at int, row model.PairRow) *form {
	title := "Add a row"
	if at >= 0 {
		title = fmt.Sprintf("Edit row %d", at+1)
	}
	f := newForm(c, title, "The recipient is normalised and checked before anything is sent.",
		func(v []string) (tea.Cmd, error) {
			r := model.PairRow{Line: row.Line, Recipient: v[0], Message: v[1]}
			return cmdOf(composerMsg{Row: &r, RowAt: at}), nil
		},
		textField("Recipient", "09121234567", 32, required("a recipient")),
		textField("Message", "the text this recipient gets", 2000, required("a message")),
	)
	f.fields[0].input.SetValue(row.Recipient)
	f.fields[1].input.SetValue(row.Message)
	return f
}

// View draws the composer: header, editor with its live counter, the rows and
// the totals.
func (p *composerPane) View() string {
	iw, ih := p.w-2, p.h-2
	lines := p.head(iw)
	lines = append(lines, p.rowLines(iw)...)
	foot := p.foot(iw)
	body := block(strings.Join(lines, "\n"), iw, ih-len(foot))
	return p.c.styles.PaneFocused.Render(body + "\n" + strings.Join(foot, "\n"))
}

// head is the composer's lines above its rows: the title, the editor with
// its counter and the table's header.
func (p *composerPane) head(iw int) []string {
	st := p.c.styles
	lines := []string{
		st.Title.Render(p.c.text(fmt.Sprintf("Compose · %s · sender %s", p.sourceText(), p.senderText()), iw)),
	}
	edLabel := "Message template"
	if p.source != sourceTemplate {
		edLabel = "Message template (not in use: rows come from " + p.source.String() + "; m to use a template)"
	}
	lines = append(lines, st.Label.Render(fit(edLabel, iw)))
	for _, l := range p.editorLines() {
		lines = append(lines, fitView(l, iw))
	}
	for _, l := range p.counter(iw) {
		lines = append(lines, st.Accent.Render(fit(l, iw)))
	}
	lines = append(lines, "")
	c := p.columns(iw)
	return append(lines, st.Header.Render(fitRight("#", c.n)+" "+fit("RECIPIENT", c.r)+" "+fit("MESSAGE", c.m)+" "+
		fit("ENC", c.e)+" "+fitRight("PARTS", c.p)+" "+fit("PROBLEMS", c.pr)))
}

// headRows is how many lines head takes.
func (p *composerPane) headRows(iw int) int { return 5 + p.editor.Height() + len(p.counter(iw)) }

// composerColumns are the widths of the rows' columns. A row shows its
// encoding and parts (what it is billed as), not its characters: those
// change on every row at every key typed in the template, and their column
// cost a character typed over 300 rows 418 B at 100×30 (issue 40: ≤ 300 B);
// the editor's counter counts the message as it goes out, and a row's parts
// and encoding change only when it crosses a part or gains a UCS-2 letter.
type composerColumns struct{ n, r, m, e, p, pr int }

func (p *composerPane) columns(iw int) composerColumns {
	c := composerColumns{n: 5, r: 14, e: 6, p: 6}
	c.m = (iw - c.n - c.r - c.e - c.p - 5) * 3 / 5
	c.pr = iw - c.n - c.r - c.e - c.p - c.m - 5
	return c
}

// rowLines are the plan's rows that fit, from the scroll offset.
func (p *composerPane) rowLines(iw int) []string {
	if p.plan == nil {
		return nil
	}
	if len(p.plan.Items) == 0 {
		return []string{p.c.styles.Muted.Render(fit(p.emptyText(), iw))}
	}
	c := p.columns(iw)
	end := min(len(p.plan.Items), p.offset+p.tableRows())
	lines := make([]string, 0, end-p.offset)
	for i := p.offset; i < end; i++ {
		lines = append(lines, p.rowLine(i, c))
	}
	return lines
}

// rowLine is row i of the plan: recipient, message, its encoding and parts
// as it will go out, and its problems.
func (p *composerPane) rowLine(i int, c composerColumns) string {
	st := p.c.styles
	it := &p.plan.Items[i]
	rcpt := it.Recipient
	if rcpt == "" {
		rcpt = it.Input
	}
	probs, msgText := strings.Join(it.Problems, "; "), it.Message
	if it.OptedOut {
		msgText = "(opted out: not sent)" // as the CLI's dry run says it
	}
	mark := " "
	if i == p.cursor && !p.editor.Focused() {
		mark = "›"
	}
	row := mark + fitRight(fmt.Sprint(i+1), c.n-1) + " " + fit(rcpt, c.r) + " " + p.c.text(msgText, c.m) + " " +
		fit(string(it.Parts.Encoding), c.e) + " " + fitRight(fmt.Sprint(it.Parts.Parts), c.p) + " "
	switch {
	case probs != "":
		return row + st.Bad.Render(p.c.text(probs, c.pr))
	case it.OptedOut:
		return row + st.Muted.Render(fit("opted out", c.pr))
	}
	return row + st.Good.Render(fit("ok", c.pr))
}

// foot is the composer's lines under its rows: the totals, the sender
// field while it is typed in, and the note, wrapped (never cut: it says
// what happened and what to do next), or a blank line.
func (p *composerPane) foot(iw int) []string {
	st := p.c.styles
	foot := []string{p.totals(iw)}
	if p.senderPick.input.Focused() {
		foot = append(foot, p.senderField(iw))
	}
	text, s := p.note, st.Muted
	switch {
	case p.note != "" && strings.HasPrefix(p.note, "✗"):
		s = st.Error
	case p.note == "" && p.tmplErr != "":
		text, s = "✗ "+p.tmplErr, st.Error
	case p.note == "":
		return append(foot, "")
	}
	for _, l := range wrapWords(text, iw, noteLines, p.c.bidi) {
		foot = append(foot, s.Render(fitView(l, iw)))
	}
	return foot
}

// noteLines is how many lines a pane's note may take.
const noteLines = 3

// senderText names the chosen sender line for the header.
func (p *composerPane) senderText() string {
	if l := p.senderLine(); l != "" {
		return l
	}
	return "none (s to type one)"
}

func (p *composerPane) sourceText() string {
	switch p.source {
	case sourceTemplate:
		return p.templateOver()
	case sourceCSV:
		return "pairs CSV " + p.csvPath
	}
	if p.reply != nil {
		return "reply to " + p.reply.To
	}
	return "typed rows"
}

// templateOver names what a template goes over: "template over Newsletter
// (300 contacts)", or that no group is open (it read "template over  (0
// contacts)").
func (p *composerPane) templateOver() string {
	if p.group.ID.IsZero() {
		return "template over no group: open one first, or o opens a pairs CSV"
	}
	name := p.group.Name
	if name == "" {
		name = "group " + string(p.group.ID)
	}
	return fmt.Sprintf("template over %s (%s)", name, model.Counted(len(p.contacts), "contact"))
}

func (p *composerPane) emptyText() string {
	switch {
	case p.source == sourceTemplate && len(p.contacts) == 0:
		return "The group has no contacts loaded: o opens a pairs CSV, a adds a row by hand."
	case p.source == sourceTemplate:
		return "Write the message above: one row per contact appears here."
	}
	return "No rows: a adds one, o opens a pairs CSV."
}

// editorLines draws the message editor. With bidi = visual, a template that
// is not being typed is shown in display order, each wrapped line reordered
// on its own (UAX #9: lines are broken first); while typing, the editor's
// own logical order stays, so that the cursor moves through the text as it
// is stored.
func (p *composerPane) editorLines() []string {
	value := p.editor.Value()
	if !p.c.bidi || p.editor.Focused() || value == "" {
		return strings.Split(p.editor.View(), "\n")
	}
	w := max(p.editor.Width(), 1)
	prompt := p.editor.Styles().Blurred.Prompt.Render(p.editor.Prompt)
	var out []string
	// The template's direction passes its placeholders by: "{name} عزیز…"
	// is a Persian message once filled in, laid out right to left.
	rtl := model.TemplateRightToLeft
	if p.source != sourceTemplate {
		rtl = nil
	}
	for _, l := range p.c.paragraphs(value, w, w, rtl) {
		out = append(out, prompt+p.editor.Styles().Blurred.Text.Render(fitView(l, w)))
	}
	h := p.editor.Height()
	for len(out) < h {
		out = append(out, prompt)
	}
	return out[:h]
}

// counter is the editor's live count of the message as it will go out:
// with the suffix the rows are planned with (model.PartsWithSuffix, the
// rows' and the confirmation's rule, never display width), why its
// encoding is UCS-2 when the suffix makes it so, and the units left in
// its last part. Its parts go on a second line when one is too narrow.
func (p *composerPane) counter(w int) []string {
	suffix := p.suffix()
	sc := model.PartsWithSuffix(p.editor.Value(), suffix)
	chars := fmt.Sprintf("%d chars", sc.Chars)
	if sc.Suffixed {
		chars += " with the suffix"
	}
	parts := fmt.Sprintf("%d part", sc.Parts)
	if sc.Parts != 1 {
		parts += "s"
	}
	if sc.SuffixMadeUCS2() {
		parts += " (UCS-2: " + model.SuffixEncodingText(suffix) + ")"
	}
	items := []string{chars, string(sc.Encoding), fmt.Sprintf("%d units", sc.Units), parts,
		fmt.Sprintf("%d left in this part (%d per part)", sc.Left, sc.PerPart)}
	if p.source == sourceTemplate && strings.Contains(p.editor.Value(), "{") {
		items = append(items, "before {…} are filled")
	}
	return packParts(items, " · ", w)
}

// suffix is the opt-out suffix the rows are planned with ("" for none).
func (p *composerPane) suffix() string {
	if p.plan != nil {
		return p.plan.Suffix
	}
	return p.c.rules.Suffix
}

// totals is always visible: recipients, parts, rows with problems.
func (p *composerPane) totals(w int) string {
	if p.plan == nil {
		return fit("", w)
	}
	// Counted as the confirmation counts: the opted-out are not sent.
	bad, out := len(p.plan.Invalid()), len(p.plan.Items)-p.plan.Recipients()
	s := fmt.Sprintf("Totals: %s recipients · %s parts", thousands(p.plan.Recipients()), thousands(p.plan.TotalParts()))
	if out > 0 {
		s += fmt.Sprintf(" · %s opted out", thousands(out))
	}
	s += fmt.Sprintf(" · %d with problems", bad)
	if p.stale {
		s += " · (esc to refresh)"
	}
	st := p.c.styles.Title
	if bad > 0 {
		st = p.c.styles.Warn
	}
	return st.Render(fit(s, w))
}
