package console

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// scroll is a cursor over a list of which only some rows are visible at once:
// the groups, the contacts, the composer's rows and the send's results.
type scroll struct {
	cursor int // position of the selected row
	offset int // first visible position
}

// clamp keeps the cursor on one of n rows and the visible window of rows
// around it.
func (s *scroll) clamp(n, visible int) {
	s.cursor = max(0, min(s.cursor, n-1))
	if s.cursor < s.offset {
		s.offset = s.cursor
	}
	if s.cursor >= s.offset+visible {
		s.offset = s.cursor - visible + 1
	}
}

// pageKey moves the cursor for up, down, page up and page down over n rows
// with visible shown at once, and reports whether msg was one of those keys.
func (s *scroll) pageKey(k *KeyMap, msg tea.KeyPressMsg, n, visible int) bool {
	switch {
	case key.Matches(msg, k.Up):
		s.cursor--
	case key.Matches(msg, k.Down):
		s.cursor++
	case key.Matches(msg, k.PageDown):
		s.cursor += visible
	case key.Matches(msg, k.PageUp):
		s.cursor -= visible
	case key.Matches(msg, k.Top):
		s.cursor = 0
	case key.Matches(msg, k.Bottom):
		s.cursor = n - 1
	default:
		return false
	}
	s.clamp(n, visible)
	return true
}

// scrollText moves the first line shown of a text of n lines in a view of
// rows lines for the movement keys; it reports whether km was one of them.
func scrollText(k *KeyMap, km tea.KeyPressMsg, offset, n, rows int) (int, bool) {
	page := max(1, rows-1)
	switch {
	case key.Matches(km, k.Up):
		offset--
	case key.Matches(km, k.Down):
		offset++
	case key.Matches(km, k.PageUp):
		offset -= page
	case key.Matches(km, k.PageDown):
		offset += page
	case key.Matches(km, k.Top):
		offset = 0
	case key.Matches(km, k.Bottom):
		offset = n
	default:
		return offset, false
	}
	return max(0, min(offset, n-rows)), true
}
