package console

import (
	"fmt"
	"slices"
	"strings"

	"github.com/smsdesk/smsdesk/model"
)

// The history list's screen: its title, the filter's line, and a row a
// send. Its columns follow gh's table rule: where the outcome does not
// fit, the lesser columns (who, then the sender) are dropped whole, not
// the outcome cut ("complete · 300 it…" at 80 columns: issue 40 item 18).

// historyColumns are the list's columns at inner width iw for the rows
// shown: the widths of ID, WHEN, the third column (PROFILE, or BY on a
// served console; 0: dropped), SENDER (0: dropped) and OUTCOME.
func (p *historyPane) historyColumns(iw int, shown []historyEntry) (idw, ww, pw, sw, cw int) {
	idw, ww, pw, sw = 22, 16, 8, 9
	if p.c.session.Operator != nil && slices.ContainsFunc(shown, func(e historyEntry) bool { return e.Runner != "" }) {
		pw = 14 // "sara via serve"
	}
	need := 0
	now := p.c.now()
	for _, e := range shown {
		need = max(need, cellWidth(e.outcome(now)))
	}
	cw = iw - idw - ww - pw - sw - 5
	if need > cw { // who sent it gives way first
		cw, pw = cw+pw+1, 0
	}
	if need > cw { // then the sender
		cw, sw = cw+sw+1, 0
	}
	return idw, ww, pw, sw, cw
}

func (p *historyPane) View() string {
	if p.detail != nil {
		return p.detailView()
	}
	st := p.c.styles
	iw, ih := p.w-2, p.h-2
	lines := []string{st.Title.Render(fit(p.title(), iw))}
	if p.filter.Focused() || p.match != "" {
		p.filter.SetWidth(max(1, iw-4))
		lines = append(lines, fitView(p.filter.View(), iw))
	} else {
		lines = append(lines, st.Muted.Render(fit("/ filter by id, sender, group or file, who sent it", iw)))
	}
	shown := p.entries[min(p.offset, len(p.entries)):min(len(p.entries), p.offset+p.rows())]
	idw, ww, pw, sw, cw := p.historyColumns(iw, shown)
	served := p.c.session.Operator != nil // every send is the one profile's: the column says who sent it
	head := " " + fit("ID", idw) + " " + fit("WHEN", ww) + " "
	if pw > 0 {
		third := "PROFILE"
		if served {
			third = "BY"
		}
		head += fit(third, pw) + " "
	}
	if sw > 0 {
		head += fit("SENDER", sw) + " "
	}
	lines = append(lines, st.Header.Render(head+fit("OUTCOME", cw)))
	if p.err != "" {
		lines = append(lines, st.Error.Render(fit("✗ "+p.err, iw)))
	}
	if len(p.entries) == 0 && !p.loading && p.err == "" {
		empty := "No sends yet."
		if p.match != "" {
			empty = "No send matches the filter. esc clears it."
		}
		lines = append(lines, st.Muted.Render(fit(empty, iw)))
	}
	for i, e := range shown {
		lines = append(lines, p.historyRow(e, p.offset+i == p.cursor, idw, ww, pw, sw, cw))
	}
	return st.PaneFocused.Render(block(strings.Join(lines, "\n"), iw, ih))
}

// historyRow is one send's row in the columns' widths (0: dropped).
func (p *historyPane) historyRow(e historyEntry, selected bool, idw, ww, pw, sw, cw int) string {
	mark := " "
	if selected {
		mark = "›"
	}
	row := mark + fit(e.ID, idw) + " " + fit(e.When, ww) + " "
	if pw > 0 {
		who := e.Profile
		if p.c.session.Operator != nil {
			who = e.by()
		}
		row += fit(who, pw) + " "
	}
	if sw > 0 {
		row += fit(e.Sender, sw) + " "
	}
	return row + fit(e.outcome(p.c.now()), cw)
}

// title says whose sends are listed, how many, and by what filter.
func (p *historyPane) title() string {
	whose := "profile " + p.c.profile.Name
	if p.all {
		whose = "every profile"
	}
	count := ""
	switch {
	case p.match != "" && p.top && p.end:
		count = fmt.Sprintf(" · %s matching %q", model.Counted(len(p.entries), "send"), p.match)
	case p.match != "":
		count = fmt.Sprintf(" · matching %q", p.match)
	case p.top && p.end:
		count = " (" + thousands(len(p.entries)) + ")"
	case p.count >= 0:
		count = " (" + thousands(p.count) + ")"
	}
	title := "Send history" + count + " · " + whose
	if p.loading {
		title += " " + p.c.spin
	}
	return title
}
