package model

import (
	"errors"
	"fmt"
	"strings"
)

// NumberFormat is the canonical form NormalizeMobile writes.
type NumberFormat int

const (
	// FormatLocal writes Iranian mobiles as 09xxxxxxxxx (the default).
	FormatLocal NumberFormat = iota
	// FormatE164 writes Iranian mobiles as +989xxxxxxxxx.
	FormatE164
)

// ParseNumberFormat reads "local" or "e164" (as written in config files).
func ParseNumberFormat(s string) (NumberFormat, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "local":
		return FormatLocal, nil
	case "e164", "e.164":
		return FormatE164, nil
	}
	return FormatLocal, fmt.Errorf("number format %q: want local or e164", s)
}

// MobileError explains why a number was rejected.
type MobileError struct {
	Input  string // the number as given (sanitised)
	Reason string // for people: what is wrong and, where it helps, what was expected
}

func (e *MobileError) Error() string { return fmt.Sprintf("mobile %q: %s", e.Input, e.Reason) }

// ErrInvalidMobile is matched by errors.Is for every *MobileError.
var ErrInvalidMobile = errors.New("invalid mobile number")

// Is makes errors.Is(err, ErrInvalidMobile) true.
func (e *MobileError) Is(target error) bool { return target == ErrInvalidMobile }

// NormalizeMobile returns the canonical form of an Iranian mobile number in any
// common spelling, or an international number in E.164. STUB: replaced by the
// model implementation.
func NormalizeMobile(s string, f NumberFormat) (string, error) {
	t := strings.TrimSpace(s)
	if len(t) == 11 && strings.HasPrefix(t, "09") {
		if f == FormatE164 {
			return "+98" + t[1:], nil
		}
		return t, nil
	}
	return "", &MobileError{Input: s, Reason: "not a mobile number"}
}
