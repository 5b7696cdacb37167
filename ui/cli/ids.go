package cli

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// Ids typed on the command line are checked here, before anything goes to the
// service: a typo is a usage error (exit 2) naming the argument, not a 404 or a
// silently tracked "group abc".

// groupIDArg checks a group id: the service's group ids are integers ("12";
// "012" is read as 12). A deployment with text ids still works for groups
// this profile knows (made with `groups create`, whose answer gave the id).
func groupIDArg(paths config.Paths, profile, arg string) (model.ID, error) {
	s := strings.TrimSpace(arg)
	if n, err := strconv.ParseUint(s, 10, 63); err == nil && n > 0 && !strings.HasPrefix(s, "+") {
		return model.ID(strconv.FormatUint(n, 10)), nil
	}
	if s != "" && profile != "" {
		if known, err := config.LoadGroups(paths, profile); err == nil {
			for _, g := range known {
				if g.ID.String() == s {
					return g.ID, nil
				}
			}
		}
	}
	return "", usageError("group id %q: want a group's number, like 12 (see `smsdesk groups list`)", arg)
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
