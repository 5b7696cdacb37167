package console

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/smsdesk/smsdesk/ui/app"
)

// The inbox's screen: its title, a row a message (when, who, to which
// line, what it did, the send it answers, its text), and, when there is
// none, what brings them, wrapped, never cut.

// inboxColumns are the widths of the inbox's columns at inner width iw:
// when, from, line, did, send (0: dropped, for the text to keep 24
// cells; enter shows it), message.
func inboxColumns(iw int, rows []app.InboxMessage) (ww, fw, lw, dw, sw, mw int) {
	ww, fw, dw, sw = 11, 11, 9, 22
	lw = 4
	for _, r := range rows {
		lw = max(lw, min(cellWidth(r.Line), 12))
	}
	mw = iw - 1 - ww - fw - lw - dw - sw - 5
	if mw < 24 {
		mw, sw = mw+sw+1, 0
	}
	return ww, fw, lw, dw, sw, max(8, mw)
}

// visible is how many message rows fit: below the title and the header.
func (p *inboxPane) visible() int { return max(1, p.h-2-2-p.errRows()) }

func (p *inboxPane) errRows() int {
	if p.err == "" {
		return 0
	}
	return len(p.wrapped("✗ "+p.err, p.w-2))
}

// wrapped lays s out in lines of at most w cells.
func (p *inboxPane) wrapped(s string, w int) []string {
	return strings.Split(ansi.Wrap(s, max(1, w), " "), "\n")
}

func (p *inboxPane) View() string {
	st := p.c.styles
	iw, ih := p.w-2, p.h-2
	title := fmt.Sprintf("Inbox (%s) · what recipients wrote to your lines, newest first", thousands(len(p.rows)))
	if len(p.rows) == inboxLimit {
		title = fmt.Sprintf("Inbox (the newest %d) · what recipients wrote to your lines", inboxLimit)
	}
	if p.loading {
		title += " " + p.c.spin
	}
	lines := []string{st.Title.Render(fit(title, iw))}
	ww, fw, lw, dw, sw, mw := inboxColumns(iw, p.rows)
	head := " " + fit("WHEN", ww) + " " + fit("FROM", fw) + " " + fit("LINE", lw) + " " + fit("DID", dw) + " "
	if sw > 0 {
		head += fit("SEND", sw) + " "
	}
	lines = append(lines, st.Header.Render(head+fit("MESSAGE", mw)))
	if p.err != "" {
		for _, l := range p.wrapped("✗ "+p.err, iw) {
			lines = append(lines, st.Error.Render(fit(l, iw)))
		}
	}
	if len(p.rows) == 0 && !p.loading && p.err == "" {
		for _, l := range p.wrapped("No messages yet. Replies arrive through the webhook receiver: smsdesk serve --webhook-addr ADDR, or smsdesk webhook --addr ADDR, with the service's webhook set to http://ADDR/webhook/"+p.c.profile.Name+" (README: the webhook receiver).", iw) {
			lines = append(lines, st.Muted.Render(fit(l, iw)))
		}
	}
	for i := p.offset; i < len(p.rows) && i < p.offset+p.visible(); i++ {
		lines = append(lines, p.row(p.rows[i], i == p.cursor, iw))
	}
	return st.PaneFocused.Render(block(strings.Join(lines, "\n"), iw, ih))
}

// row is one message's row.
func (p *inboxPane) row(r app.InboxMessage, selected bool, iw int) string {
	ww, fw, lw, dw, sw, mw := inboxColumns(iw, p.rows)
	mark := " "
	if selected {
		mark = "›"
	}
	row := mark + fit(r.ReceivedAt.Format("01-02 15:04"), ww) + " " + fit(r.Sender, fw) + " " + fit(r.Line, lw) + " " +
		fit(actionWord(r.Action), dw) + " "
	if sw > 0 {
		send := r.SendID
		if send == "" {
			send = "—"
		}
		row += fit(send, sw) + " "
	}
	row += p.c.text(r.Message, mw)
	if selected {
		return p.c.styles.Selected.Render(row)
	}
	return row
}
