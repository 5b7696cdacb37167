package model

// The steps of resolveLevels (bidi.go) that UAX #9 names: the classes, the
// paragraph level (P2–P3), the implicit levels (I1–I2) and L1.

import "golang.org/x/text/unicode/bidi"

// bidiClasses is each rune's bidi class, twice: as looked up (orig) and as
// the rules will resolve it (types). Explicit formatting is not supported:
// it is ignored, as X9 removes it (BN).
func bidiClasses(runes []rune) (orig, types []bidi.Class) {
	orig = make([]bidi.Class, len(runes))
	types = make([]bidi.Class, len(runes))
	for i, r := range runes {
		p, _ := bidi.LookupRune(r)
		c := p.Class()
		if c >= bidi.Control { // explicit formatting: not supported, ignored (X9)
			c = bidi.BN
		}
		orig[i], types[i] = c, c
	}
	return orig, types
}

// paragraphLevel is P2–P3: 1 (RTL) when the first strong type is R or AL,
// else 0 (LTR).
func paragraphLevel(types []bidi.Class) int {
	for _, c := range types {
		switch c {
		case bidi.L:
			return 0
		case bidi.R, bidi.AL:
			return 1
		}
	}
	return 0
}

// implicitLevels is I1–I2: each rune of seq's level from its resolved type
// and the paragraph level base; -1 for the runes X9 removed.
func implicitLevels(types []bidi.Class, seq []int, base int) []int {
	levels := make([]int, len(types))
	for i := range levels {
		levels[i] = -1
	}
	for _, i := range seq {
		lv := base
		switch t := types[i]; {
		case base%2 == 0 && t == bidi.R:
			lv++
		case base%2 == 0 && (t == bidi.AN || t == bidi.EN):
			lv += 2
		case base%2 == 1 && (t == bidi.L || t == bidi.AN || t == bidi.EN):
			lv++
		}
		levels[i] = lv
	}
	return levels
}

// resetWhitespace is L1: segment separators, and whitespace before them or
// at the line's end, go back to the paragraph level base.
func resetWhitespace(levels []int, orig []bidi.Class, base int) {
	trailing := true
	for i := len(orig) - 1; i >= 0; i-- {
		switch orig[i] {
		case bidi.S, bidi.B:
			levels[i], trailing = base, true
		case bidi.WS, bidi.BN:
			if trailing && levels[i] >= 0 {
				levels[i] = base
			}
		default:
			trailing = false
		}
	}
}
