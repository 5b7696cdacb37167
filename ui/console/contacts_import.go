package console

// A contacts CSV imported into the open group: read off the UI loop,
// checked against the group (app.Session.PreviewImport), confirmed, then
// added row by row with progress (app.Session.Import).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/smsdesk/smsdesk/model"
)

// importFileMsg carries a contacts CSV's rows, read off the UI loop for an
// import into group GroupID.
type importFileMsg struct {
	GroupID model.ID
	Path    string
	Rows    []model.ContactRow
}

// readContactsFile reads the contacts file name (a form's words) for an
// import into group gid, off the UI loop.
func readContactsFile(c *common, gid model.ID, name string) (tea.Msg, error) {
	path, err := c.filePath(name)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	defer func() { _ = f.Close() }() // read only: a close error loses nothing
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory; give a CSV file", name)
	}
	var rows []model.ContactRow
	if err := model.ReadContacts(f, func(r model.ContactRow) error { rows = append(rows, r); return nil }); err != nil {
		return nil, model.NameCSVError(err, path)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s has no contact rows", path)
	}
	return importFileMsg{GroupID: gid, Path: path, Rows: rows}, nil
}

// startImport previews a contacts file's rows against the open group
// (app.Session.PreviewImport, the use case `contacts import` shares): the
// operator then sees how many rows would be added, how many the group has
// already and which are invalid and why, and says yes before anything is
// added. Rows read for another group (the operator moved on) are dropped.
func (p *contactsPane) startImport(msg importFileMsg) tea.Cmd {
	switch {
	case msg.GroupID != p.group.ID:
		return cmdOf(statusMsg{Text: "import not started: another group is open now"})
	case p.imports[msg.GroupID] != nil:
		return cmdOf(statusMsg{Text: "an import into this group is running: wait for it, or esc stops it"})
	}
	path, rows := msg.Path, msg.Rows
	sess, g := p.c.session, p.group
	ctx, work := p.c.startWork(workImport, "checking "+path+" against "+g.Name)
	p.setWorking(fmt.Sprintf("checking %d rows of %s against the group…", len(rows), path))
	p.err, p.note = "", ""
	return func() tea.Msg {
		pv, err := sess.PreviewImport(ctx, g.ID, rows)
		return importPreviewMsg{GroupID: g.ID, GroupName: g.Name, Path: path, Preview: pv, Err: err, work: work}
	}
}

// importPreviewMsg is what an import would do, before anything is added.
type importPreviewMsg struct {
	GroupID   model.ID
	GroupName string
	Path      string
	Preview   model.ImportPreview
	Err       error
	work      int // the check's work id
}

func (m importPreviewMsg) failure() error { return m.Err }

// confirmImport shows the preview and starts the import on yes. With nothing
// to add it ends at once with the counts.
func (p *contactsPane) confirmImport(msg importPreviewMsg) tea.Cmd {
	pv := msg.Preview
	var failures []string
	for _, r := range pv.Invalid {
		failures = append(failures, fmt.Sprintf("line %d: %s", r.Line, model.SanitizeLine(r.Error)))
	}
	if len(pv.Valid) == 0 {
		return cmdOf(importDoneMsg{GroupID: msg.GroupID, GroupName: msg.GroupName, Already: len(pv.Already), Invalid: len(pv.Invalid), Failures: failures})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Add %d contact(s) from %s to %s.\n", len(pv.Valid), model.SanitizeLine(p.c.shownPath(msg.Path)), model.SanitizeLine(msg.GroupName))
	fmt.Fprintf(&b, "%d already in the group (skipped).\n", len(pv.Already))
	fmt.Fprintf(&b, "%d invalid, not imported", len(pv.Invalid))
	for i, f := range failures {
		if i == 3 {
			fmt.Fprintf(&b, "\n  … and %d more", len(failures)-i)
			break
		}
		b.WriteString("\n  " + f)
	}
	p.setWorking("") // the question says it all until the answer
	dlg := newConfirm(p.c, "Import contacts?", b.String(), func() tea.Cmd { return p.runImport(msg, failures) })
	dlg.onNo = func() tea.Cmd {
		p.setWorking("")
		p.note = "import cancelled; nothing was added"
		return nil
	}
	return p.c.showModal(dlg)
}

// runImport adds the preview's valid rows (app.Session.Import), streaming progress.
// It goes on when another group is opened meanwhile, and its summary still
// reaches the status bar and the message log.
func (p *contactsPane) runImport(preview importPreviewMsg, failures []string) tea.Cmd {
	sess, gid, pv := p.c.session, preview.GroupID, preview.Preview
	if imp := p.imports[gid]; imp != nil {
		// One import per group at a time: two would race to add the same rows.
		return cmdOf(statusMsg{Err: fmt.Errorf("an import into %s is running already; esc there stops it", preview.GroupName)})
	}
	console := p.c.ctx
	ctx, work := p.c.startWork(workImport, fmt.Sprintf("%d rows of %s into %s", len(pv.Valid), preview.Path, preview.GroupName))
	p.imports[gid] = &importRun{work: work, began: p.c.now(), text: fmt.Sprintf("importing %d contacts…", len(pv.Valid)),
		group: preview.GroupName, path: preview.Path, total: len(pv.Valid)}
	ch := make(chan tea.Msg, 4)
	go func() {
		defer close(ch)
		sum := sess.Import(ctx, gid, pv.Valid, func(i int) {
			select {
			case ch <- importProgressMsg{GroupID: gid, Done: i + 1, Failed: len(failures), work: work}:
			default: // the reader is behind: a later row's progress says more
			}
		})
		for _, r := range pv.Valid {
			if r.Status == model.ImportFailed {
				failures = append(failures, fmt.Sprintf("line %d: %s", r.Line, r.Error))
			}
		}
		done := importDoneMsg{GroupID: gid, GroupName: preview.GroupName, Path: preview.Path, Added: sum.Added, Already: len(pv.Already) + sum.Already,
			Invalid: len(pv.Invalid), Failures: failures, work: work}
		switch {
		case sum.NotAttempted == 0:
		case ctx.Err() != nil && console.Err() == nil:
			// The operator's choice, not a failure: said in the summary.
			done.Stopped = fmt.Sprintf("%v: %d row(s) not attempted; importing the file again adds them", context.Cause(ctx), sum.NotAttempted)
		case ctx.Err() != nil:
			done.Err = fmt.Errorf("import stopped: %d row(s) not attempted: %w", sum.NotAttempted, ctx.Err())
		default:
			done.Err = fmt.Errorf("import stopped: %d row(s) not attempted", sum.NotAttempted)
		}
		select {
		case ch <- done: // a stopped import's summary too: it is not the console's end
		case <-console.Done(): // the console is ending: nobody reads any more
		}
	}()
	total := len(pv.Valid)
	var next tea.Cmd
	next = func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		if pm, isProgress := msg.(importProgressMsg); isProgress {
			pm.next, pm.total = next, total
			return pm
		}
		return msg
	}
	return next
}

// stopImport stops the shown group's import after the row in flight; its
// summary then says how many rows were not attempted (a later import of the
// same file adds them: the rows it added are then already in the group).
func (p *contactsPane) stopImport() {
	imp := p.imports[p.group.ID]
	if imp == nil {
		return
	}
	p.c.work.stop(imp.work, errStoppedEsc)
	imp.text = "stopping the import after its row in flight…"
}

// Why an import stopped early, as its summary says it.
var (
	errStoppedEsc  = errors.New("stopped (esc)")
	errStoppedQuit = errors.New("stopped (quit)")
)

// importing reports whether an import is running, in any group.
func (p *contactsPane) importing() bool { return len(p.imports) > 0 }

// stopImports stops every running import after its row in flight (the
// console is quitting).
func (p *contactsPane) stopImports() {
	for _, imp := range p.imports {
		p.c.work.stop(imp.work, errStoppedQuit)
		imp.text = "stopping the import after its row in flight…"
	}
}

// importsLine describes the running imports for a question: "into G (5 of
// 30 rows)", joined.
func (p *contactsPane) importsLine() string {
	var parts []string
	for _, imp := range p.imports {
		parts = append(parts, fmt.Sprintf("into %s (%d of %d rows)", model.SanitizeLine(imp.group), imp.done, imp.total))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// importUpdate shows an import's check, progress and outcome in the pane.
func (p *contactsPane) importUpdate(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case importProgressMsg:
		p.importProgress(msg)
		return msg.next
	case importPreviewMsg:
		return p.importPreviewed(msg)
	case importDoneMsg:
		return p.importDone(msg)
	}
	return nil
}

// importProgress says how far a running import is, with its ETA once it has
// run a second.
func (p *contactsPane) importProgress(msg importProgressMsg) {
	imp := p.imports[msg.GroupID]
	if imp == nil || imp.work != msg.work {
		return
	}
	imp.done = msg.Done
	imp.text = fmt.Sprintf("importing… %d of %d rows, %d invalid", msg.Done, msg.total, msg.Failed)
	if el := p.c.now().Sub(imp.began); msg.Done > 0 && msg.total > msg.Done && el >= time.Second {
		eta := time.Duration(float64(el) * float64(msg.total-msg.Done) / float64(msg.Done))
		imp.text += " · ETA " + eta.Round(time.Second).String()
	}
	if w := p.c.work.find(msg.work); w != nil && w.stopping {
		imp.text = "stopping the import after its row in flight…"
	}
}

// importPreviewed asks to confirm an import whose file was checked, or says
// why it could not be.
func (p *contactsPane) importPreviewed(msg importPreviewMsg) tea.Cmd {
	p.c.work.end(msg.work)
	if msg.Err != nil {
		p.setWorking("")
		if msg.GroupID == p.group.ID {
			p.err = errorLine(msg.Err)
		}
		return nil
	}
	return p.confirmImport(msg) // it names its group, shown or not
}

// importDone says how an import ended: in the pane when its group is shown,
// on the status bar always, each failed row in the message log, and among
// the unfinished work when it stopped or failed.
func (p *contactsPane) importDone(msg importDoneMsg) tea.Cmd {
	p.c.work.end(msg.work)
	if imp := p.imports[msg.GroupID]; imp != nil && imp.work == msg.work {
		delete(p.imports, msg.GroupID)
	}
	if msg.GroupID == p.workingFor {
		p.setWorking("") // an import with nothing to add ends at its check
	}
	for _, f := range msg.Failures {
		p.c.log("import into " + model.SanitizeLine(msg.GroupName) + ": " + model.SanitizeLine(f))
	}
	note := p.importNote(msg)
	if msg.Stopped != "" || msg.Err != nil {
		p.unfinished = append(p.unfinished, note+" (file "+model.SanitizeLine(p.c.shownPath(msg.Path))+")")
	}
	if len(msg.Failures) > 0 {
		note += " · L: every row in the message log"
	}
	if msg.GroupID != p.group.ID {
		return cmdOf(statusMsg{Text: note}) // the group is no longer shown: the status bar says it
	}
	reload := p.refresh() // list again: table and cache match the service
	p.note = note
	return tea.Batch(reload, cmdOf(statusMsg{Text: note}))
}

// importNote counts what an import did, with why it stopped or failed.
func (p *contactsPane) importNote(msg importDoneMsg) string {
	failed := len(msg.Failures) - msg.Invalid
	note := fmt.Sprintf("import into %s: %d added, %d already in the group (skipped), %d invalid (not imported), %d failed",
		model.SanitizeLine(msg.GroupName), msg.Added, msg.Already, msg.Invalid, failed)
	switch {
	case msg.Stopped != "":
		note += " · " + msg.Stopped
	case msg.Err != nil:
		// In the note, which stays: the error line clears on the next success
		// (the reload that follows).
		note += " · " + model.SanitizeLine(p.c.shownErr(msg.Err).Error())
	}
	return note
}
