package cli

import (
	"unicode"
	"unicode/utf8"

	"github.com/smsdesk/smsdesk/model"
)

// Ids typed on the command line are checked here, before anything goes to the
// service: a typo is a usage error (exit 2) naming the argument, not a 404 or a
// silently tracked "group abc".

// groupIDArg reads a group id as the profile's session reads it
// (app.Session.GroupID: a number, or a group this profile knows); a typo is
// a usage error naming the argument.
func groupIDArg(s *session, arg string) (model.ID, error) {
	id, err := s.App.GroupID(arg)
	if err != nil {
		return "", groupIDError(arg)
	}
	return id, nil
}

// groupIDError is a group id that is none.
func groupIDError(arg string) error {
	return usageError("group id %q: want a group's number, like 12 (see `smsdesk groups list`)", arg)
}

// contactIDArg checks a contact id: a non-empty token without spaces or
// control characters, as `contacts list` shows them.
func contactIDArg(arg string) (model.ID, error) {
	ok := arg != "" && utf8.ValidString(arg) && utf8.RuneCountInString(arg) <= 64
	for _, r := range arg {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '/' || r == '?' || r == '#' {
			ok = false
		}
	}
	if !ok {
		return "", usageError("contact id %q: want an id as `smsdesk contacts list GROUP_ID` shows it, like 981", arg)
	}
	return model.ID(arg), nil
}
