package model

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A once-only send (send-pair --once ID) is made at most once per account:
// a second send with the same ID is the same send again (a cron job re-run)
// when its pairs are the same, and a mistake when they are not. What "the
// same" means is PairsDigest.

// MaxOnceIDLen bounds a once-only id.
const MaxOnceIDLen = 200

// CheckOnceID refuses what cannot be a once-only id: empty, longer than
// MaxOnceIDLen, not UTF-8, or holding spaces at its ends or control
// characters (it is printed back and kept in a file).
func CheckOnceID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("an empty id")
	case len(id) > MaxOnceIDLen:
		return fmt.Errorf("%d bytes, over %d", len(id), MaxOnceIDLen)
	case !utf8.ValidString(id):
		return fmt.Errorf("not UTF-8 text")
	case strings.TrimSpace(id) != id:
		return fmt.Errorf("spaces at its start or end")
	case strings.ContainsFunc(id, func(r rune) bool { return unicode.IsControl(r) || hasBidiControl(string(r)) }):
		return fmt.Errorf("control characters")
	}
	return nil
}

func hasBidiControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 })
}

// PairsDigest names a plan's pairs for a once-only send: a SHA-256 over its
// sender line and every (recipient, text) pair, in any order (the same file
// sorted otherwise is the same send). Items without a recipient count by
// what was given. Two plans with the same digest send the same texts to the
// same numbers from the same line.
func PairsDigest(p *SendPlan) string {
	lines := make([]string, len(p.Items))
	for i, it := range p.Items {
		r := it.Recipient
		if r == "" {
			r = "?" + it.Input
		}
		lines[i] = r + "\x00" + it.Message
	}
	slices.Sort(lines)
	h := sha256.New()
	fmt.Fprintf(h, "sender %s\n", p.Sender)
	for _, l := range lines {
		fmt.Fprintf(h, "%d:%s\n", len(l), l)
	}
	return hex.EncodeToString(h.Sum(nil))
}
