package model

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The service's limits on a group and a contact, as its field rules
// document them (the sandbox keeps the same): a group's name 1 to 100
// characters, its description at most 255, a contact's name at most 255.
// They are checked before anything is asked of the service, by the
// application layer for every face, so that each refuses the same way, in
// the same words, naming the field; the console's forms check them as they
// are typed with the same functions. Spaces around a value are not counted:
// the service trims them.
const (
	MaxGroupName        = 100
	MaxGroupDescription = 255
	// MaxContactName is the service's own limit (255), for a contact added
	// one at a time and by import alike: the console's form allowed 100 and
	// `contacts add --name` had no limit, so a name an import took could
	// not be typed, and one the service refuses was sent.
	MaxContactName = 255
)

// GroupNameProblem says what the service would refuse in a new group's
// name: none, or one over MaxGroupName characters ("" when it takes it).
func GroupNameProblem(name string) string {
	switch n := utf8.RuneCountInString(strings.TrimSpace(name)); {
	case n == 0:
		return "a group needs a name"
	case n > MaxGroupName:
		return fmt.Sprintf("group name is %d characters; the service takes at most %d", n, MaxGroupName)
	}
	return ""
}

// GroupDescriptionProblem says what the service would refuse in a new
// group's description: one over MaxGroupDescription characters.
func GroupDescriptionProblem(description string) string {
	if n := utf8.RuneCountInString(strings.TrimSpace(description)); n > MaxGroupDescription {
		return fmt.Sprintf("description is %d characters; the service takes at most %d", n, MaxGroupDescription)
	}
	return ""
}

// ContactNameProblem says what is wrong with a contact's name: text that is
// not text (TextProblem: a spreadsheet's question marks, mojibake), or one
// over MaxContactName characters. "" when it can go.
func ContactNameProblem(name string) string {
	name = strings.TrimSpace(name)
	if p := TextProblem(name); p != "" {
		return "name: " + p
	}
	if n := utf8.RuneCountInString(name); n > MaxContactName {
		return fmt.Sprintf("name is %d characters; the service takes at most %d", n, MaxContactName)
	}
	return ""
}

// ContactMobileProblem normalises a contact's mobile (NormalizeMobile in
// opts.Format) and refuses a number outside Iran unless
// opts.AllowInternational, as a send refuses it. It returns the number to
// add, or why not.
func ContactMobileProblem(mobile string, opts ImportOptions) (normalized, problem string) {
	m, err := NormalizeMobile(mobile, opts.Format)
	switch {
	case err != nil:
		return "", err.Error()
	case !opts.AllowInternational && !IsIranianMobile(m):
		return "", ForeignNumberProblem(m)
	}
	return m, ""
}
