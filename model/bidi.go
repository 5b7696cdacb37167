package model

import (
	"strings"

	"github.com/rivo/uniseg"
	"golang.org/x/text/unicode/bidi"
)

// Right-to-left text for terminals that do not reorder it themselves.
//
// Konsole and GNOME Terminal apply the Unicode Bidirectional Algorithm (UAX #9)
// to what a program writes; Windows Terminal, PuTTY, Alacritty, kitty and tmux
// show characters in the order written, so a Persian word reads backwards.
// VisualLine reorders one display line for those terminals. It is for display
// only: what is stored and sent stays in logical order.
//
// golang.org/x/text/unicode/bidi gives each character's bidi class and the
// bracket pairs, but its Paragraph does not expose resolved levels nor reorder
// (x/text v0.43: "under construction"), so the resolution below implements
// UAX #9 for one paragraph without explicit embeddings: P2–P3, W1–W7, N0–N2,
// I1–I2, L1 and L2. Explicit embedding, override and isolate controls
// (U+202A–E, U+2066–9), which smsdesk's sanitiser removes from text anyway,
// are treated as boundary neutrals. Reordering moves whole grapheme clusters,
// so a base and its marks, an emoji sequence or a ZWNJ stay together, and
// brackets in right-to-left runs are mirrored (L4).

// VisualLine returns line in visual (left-to-right display) order. A line
// with no right-to-left character is returned as it is.
func VisualLine(line string) string {
	if !hasRTL(line) {
		return line
	}
	levels, base := resolveLevels([]rune(line), -1)
	return reorderGraphemes(line, levels, base)
}

// VisualLineIn is VisualLine with the paragraph's direction given (rtl:
// right to left) instead of found in line: each line of a wrapped
// paragraph is reordered in the direction of the paragraph it belongs
// to (UAX #9 breaks lines first, and a line that begins with a Latin
// word in a Persian paragraph is still right to left).
func VisualLineIn(line string, rtl bool) string {
	if !hasRTL(line) {
		return line
	}
	base := 0
	if rtl {
		base = 1
	}
	levels, _ := resolveLevels([]rune(line), base)
	return reorderGraphemes(line, levels, base)
}

// RightToLeft reports whether a paragraph is right to left: its first
// strong character is of a right-to-left script (UAX #9, P2-P3). Text
// with no strong character is left to right.
func RightToLeft(s string) bool {
	for _, r := range s {
		switch p, _ := bidi.LookupRune(r); p.Class() {
		case bidi.L:
			return false
		case bidi.R, bidi.AL:
			return true
		}
	}
	return false
}

// TemplateRightToLeft is RightToLeft for a message template: its
// placeholders ({name}) are passed by, as the text they stand for decides
// the message's direction once filled in ("{name} عزیز، …" is a Persian
// message). A template of placeholders alone is left to right.
func TemplateRightToLeft(s string) bool {
	var b strings.Builder
	for {
		open := strings.IndexByte(s, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(s[open:], '}')
		if end < 0 {
			break
		}
		b.WriteString(s[:open])
		b.WriteByte(' ')
		s = s[open+end+1:]
	}
	b.WriteString(s)
	return RightToLeft(b.String())
}

// hasRTL reports whether s holds any character of a right-to-left class.
func hasRTL(s string) bool {
	for _, r := range s {
		if r < 0x0590 {
			continue
		}
		switch p, _ := bidi.LookupRune(r); p.Class() {
		case bidi.R, bidi.AL, bidi.AN:
			return true
		}
	}
	return false
}

// resolveLevels returns each rune's embedding level after L1 (-1 for the
// boundary neutrals X9 removes, which take a neighbour's level for display)
// and the paragraph level. base is 0 (LTR), 1 (RTL) or -1 (first strong, P2–P3).
func resolveLevels(runes []rune, base int) ([]int, int) {
	orig, types := bidiClasses(runes)
	if base < 0 {
		base = paragraphLevel(types)
	}
	// The one isolating run sequence: every rune that X9 keeps.
	var seq []int
	for i, c := range types {
		if c != bidi.BN {
			seq = append(seq, i)
		}
	}
	e := bidi.L // the embedding direction, also sos and eos
	if base == 1 {
		e = bidi.R
	}
	resolveWeak(types, seq, e)
	resolveBrackets(runes, orig, types, seq, e)
	resolveNeutrals(types, seq, e)
	levels := implicitLevels(types, seq, base)
	resetWhitespace(levels, orig, base)
	return levels, base
}

// resolveWeak applies W1–W7 over the run sequence seq (indexes into types).
func resolveWeak(types []bidi.Class, seq []int, sos bidi.Class) {
	// W1: a mark takes the type of what it marks.
	prev := sos
	for _, i := range seq {
		if types[i] == bidi.NSM {
			types[i] = prev
		}
		prev = types[i]
	}
	// W2: European digits after an Arabic letter are Arabic numbers. W3: AL is R.
	strong := sos
	for _, i := range seq {
		switch types[i] {
		case bidi.L, bidi.R, bidi.AL:
			strong = types[i]
		case bidi.EN:
			if strong == bidi.AL {
				types[i] = bidi.AN
			}
		}
	}
	for _, i := range seq {
		if types[i] == bidi.AL {
			types[i] = bidi.R
		}
	}
	// W4: one separator between two numbers of a kind joins them.
	for k := 1; k+1 < len(seq); k++ {
		a, t, b := types[seq[k-1]], types[seq[k]], types[seq[k+1]]
		switch {
		case t == bidi.ES && a == bidi.EN && b == bidi.EN,
			t == bidi.CS && a == bidi.EN && b == bidi.EN:
			types[seq[k]] = bidi.EN
		case t == bidi.CS && a == bidi.AN && b == bidi.AN:
			types[seq[k]] = bidi.AN
		}
	}
	// W5: terminators (%, $, #…) next to European digits are European digits.
	for k := 0; k < len(seq); k++ {
		if types[seq[k]] != bidi.ET {
			continue
		}
		end := k
		for end < len(seq) && types[seq[end]] == bidi.ET {
			end++
		}
		if (k > 0 && types[seq[k-1]] == bidi.EN) || (end < len(seq) && types[seq[end]] == bidi.EN) {
			for j := k; j < end; j++ {
				types[seq[j]] = bidi.EN
			}
		}
		k = end - 1
	}
	// W6: other separators and terminators are neutral. W7: European digits
	// after a left-to-right letter (or at the start of an LTR line) are L.
	strong = sos
	for _, i := range seq {
		switch types[i] {
		case bidi.ES, bidi.ET, bidi.CS:
			types[i] = bidi.ON
		case bidi.L, bidi.R:
			strong = types[i]
		case bidi.EN:
			if strong == bidi.L {
				types[i] = bidi.L
			}
		}
	}
}

// strongOf is a type as N0 and N1 see it: numbers count as R.
func strongOf(c bidi.Class) bidi.Class {
	switch c {
	case bidi.L:
		return bidi.L
	case bidi.R, bidi.AL, bidi.EN, bidi.AN:
		return bidi.R
	}
	return bidi.ON
}

// resolveBrackets applies N0: a pair of brackets takes the direction of the
// text inside it (the embedding direction when that occurs, else the other
// one when the context before agrees), so "(سلام)" stays one unit.
func resolveBrackets(runes []rune, orig, types []bidi.Class, seq []int, e bidi.Class) {
	type pair struct{ open, close int } // positions in seq
	var pairs []pair
	type opener struct {
		pos   int
		match rune
	}
	var stack []opener
scan:
	for k, i := range seq {
		if types[i] != bidi.ON {
			continue
		}
		p, _ := bidi.LookupRune(runes[i])
		if !p.IsBracket() {
			continue
		}
		if p.IsOpeningBracket() {
			if len(stack) == 63 { // BD16: stop at the stack's limit
				break
			}
			m := []rune(bidi.ReverseString(string(runes[i])))
			stack = append(stack, opener{pos: k, match: m[0]})
			continue
		}
		for s := len(stack) - 1; s >= 0; s-- {
			if stack[s].match == runes[i] || canonicalBracket(stack[s].match) == canonicalBracket(runes[i]) {
				pairs = append(pairs, pair{stack[s].pos, k})
				stack = stack[:s]
				continue scan
			}
		}
	}
	// Pairs in the order of their opening bracket.
	for a := 1; a < len(pairs); a++ {
		for b := a; b > 0 && pairs[b].open < pairs[b-1].open; b-- {
			pairs[b], pairs[b-1] = pairs[b-1], pairs[b]
		}
	}
	for _, p := range pairs {
		found := bidi.ON
		for k := p.open + 1; k < p.close; k++ {
			s := strongOf(types[seq[k]])
			if s == e {
				found = e
				break
			}
			if s != bidi.ON {
				found = s
			}
		}
		if found == bidi.ON {
			continue // no strong type inside: N1 decides
		}
		dir := found
		if found != e {
			before := e // sos
			for k := p.open - 1; k >= 0; k-- {
				if s := strongOf(types[seq[k]]); s != bidi.ON {
					before = s
					break
				}
			}
			if before != found {
				dir = e
			}
		}
		for _, k := range []int{p.open, p.close} {
			types[seq[k]] = dir
			// Marks on a bracket follow it (they were given ON by W1).
			for j := k + 1; j < len(seq) && orig[seq[j]] == bidi.NSM; j++ {
				types[seq[j]] = dir
			}
		}
	}
}

// canonicalBracket maps the angle brackets U+2329/U+232A to their canonical
// equivalents U+3008/U+3009 (BD16 compares brackets canonically).
func canonicalBracket(r rune) rune {
	switch r {
	case 0x2329:
		return 0x3008
	case 0x232A:
		return 0x3009
	}
	return r
}

// resolveNeutrals applies N1–N2: neutrals between two strong types of one
// direction take it; others take the embedding direction.
func resolveNeutrals(types []bidi.Class, seq []int, e bidi.Class) {
	isNeutral := func(c bidi.Class) bool {
		switch c {
		case bidi.B, bidi.S, bidi.WS, bidi.ON:
			return true
		}
		return false
	}
	for k := 0; k < len(seq); k++ {
		if !isNeutral(types[seq[k]]) {
			continue
		}
		end := k
		for end < len(seq) && isNeutral(types[seq[end]]) {
			end++
		}
		before, after := e, e // sos and eos are the embedding direction here
		if k > 0 {
			before = strongOf(types[seq[k-1]])
		}
		if end < len(seq) {
			after = strongOf(types[seq[end]])
		}
		dir := e
		if before == after {
			dir = before
		}
		for j := k; j < end; j++ {
			types[seq[j]] = dir
		}
		k = end - 1
	}
}

// visualOrder applies L2 to levels (one per unit, -1 for units with no level
// of their own, which take the previous unit's) and returns the units'
// indexes in display order.
func visualOrder(levels []int, base int) []int {
	lv := make([]int, len(levels))
	last := base
	for i, l := range levels {
		if l < 0 {
			l = last
		}
		lv[i], last = l, l
	}
	order := make([]int, len(lv))
	highest, lowestOdd := 0, 1<<30
	for i, l := range lv {
		order[i] = i
		highest = max(highest, l)
		if l%2 == 1 {
			lowestOdd = min(lowestOdd, l)
		}
	}
	for level := highest; level >= lowestOdd && level > 0; level-- {
		for i := 0; i < len(order); {
			if lv[order[i]] < level {
				i++
				continue
			}
			j := i
			for j < len(order) && lv[order[j]] >= level {
				j++
			}
			for a, b := i, j-1; a < b; a, b = a+1, b-1 {
				order[a], order[b] = order[b], order[a]
			}
			i = j
		}
	}
	return order
}

// reorderGraphemes lays out line's grapheme clusters in visual order. Each
// cluster has the level of its first rune that has one; a cluster at an odd
// level that is a mirrored bracket shows its counterpart.
func reorderGraphemes(line string, levels []int, base int) string {
	var clusters []string
	var clLevels []int
	pos := 0
	gr := uniseg.NewGraphemes(line)
	for gr.Next() {
		c := gr.Str()
		k := len([]rune(c))
		lv := -1
		for j := pos; j < pos+k && j < len(levels); j++ {
			if levels[j] >= 0 {
				lv = levels[j]
				break
			}
		}
		clusters = append(clusters, c)
		clLevels = append(clLevels, lv)
		pos += k
	}
	var b strings.Builder
	b.Grow(len(line))
	for _, i := range visualOrder(clLevels, base) {
		c := clusters[i]
		if lv := clLevels[i]; lv%2 == 1 && len(c) <= 4 {
			if p, _ := bidi.LookupString(c); p.IsBracket() {
				c = bidi.ReverseString(c)
			}
		}
		b.WriteString(c)
	}
	return b.String()
}
