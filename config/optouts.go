package config

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/smsdesk/smsdesk/model"
)

// An account's opt-out list lives in the state directory under the account
// (model.AccountID: the service's host and the key, digested), not the
// profile: every profile and every operator of smsdesk serve that sends
// through the account keeps the same list. accounts/<id>/optouts.json, 0600,
// replaced atomically under a lock, so that two processes adding at once
// both keep their numbers.

const optOutsFileVersion = 1

// AccountDir is where state shared by every profile on one service account
// lives: <state>/accounts/<AccountID>.
func (p Paths) AccountDir(account string) (string, error) {
	if account == "" || account != filepath.Base(account) || account[0] == '.' {
		return "", fmt.Errorf("no account: the opt-out list needs the service's base URL and the key (smsdesk login)")
	}
	return filepath.Join(p.StateDir, "accounts", account), nil
}

// OptOutsFile is the account's opt-out list.
func (p Paths) OptOutsFile(account string) (string, error) {
	dir, err := p.AccountDir(account)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "optouts.json"), nil
}

type optOutsFile struct {
	Version int            `json:"version"`
	OptOuts []model.OptOut `json:"optouts"`
}

// LoadOptOuts reads the account's opt-out list (empty when there is none).
func LoadOptOuts(p Paths, account string) ([]model.OptOut, error) {
	path, err := p.OptOutsFile(account)
	if err != nil {
		return nil, err
	}
	return readOptOuts(path)
}

// OptOutChange is what AddOptOuts or RemoveOptOuts did: the entries
// changed, and those asked for that were already so (added before, or not
// in the list).
type OptOutChange struct {
	Changed []model.OptOut
	Already []model.OptOut
}

// AddOptOuts adds entries (their Mobile an OptOutKey) to the account's list.
// A number already opted out for every line, or for the same line, is left
// as it is (Already).
func AddOptOuts(p Paths, account string, add []model.OptOut) (OptOutChange, error) {
	var ch OptOutChange
	err := updateOptOuts(p, account, func(list []model.OptOut) ([]model.OptOut, bool) {
		for _, o := range add {
			i := slices.IndexFunc(list, func(e model.OptOut) bool {
				return e.Mobile == o.Mobile && (e.AllLines() || e.Sender == o.Sender)
			})
			if i >= 0 {
				ch.Already = append(ch.Already, list[i])
				continue
			}
			list = append(list, o)
			ch.Changed = append(ch.Changed, o)
		}
		return list, len(ch.Changed) > 0
	})
	return ch, err
}

// RemoveOptOuts removes the opt-outs of mobiles (OptOutKeys): for sender
// only, or every entry of the number when sender is "". A number with
// nothing to remove comes back in Already (Mobile and Sender as asked).
func RemoveOptOuts(p Paths, account string, mobiles []string, sender string) (OptOutChange, error) {
	var ch OptOutChange
	err := updateOptOuts(p, account, func(list []model.OptOut) ([]model.OptOut, bool) {
		for _, m := range mobiles {
			n := len(ch.Changed)
			list = slices.DeleteFunc(list, func(e model.OptOut) bool {
				if e.Mobile == m && (sender == "" || e.Sender == sender) {
					ch.Changed = append(ch.Changed, e)
					return true
				}
				return false
			})
			if len(ch.Changed) == n {
				ch.Already = append(ch.Already, model.OptOut{Mobile: m, Sender: sender})
			}
		}
		return list, len(ch.Changed) > 0
	})
	return ch, err
}

func updateOptOuts(p Paths, account string, modify func([]model.OptOut) ([]model.OptOut, bool)) error {
	path, err := p.OptOutsFile(account)
	if err != nil {
		return err
	}
	return rewriteUnderLock(path, readOptOuts, func(list []model.OptOut) ([]model.OptOut, bool, error) {
		list, changed := modify(list)
		return list, changed, nil
	}, func(list []model.OptOut) any { return optOutsFile{Version: optOutsFileVersion, OptOuts: list} })
}

func readOptOuts(path string) ([]model.OptOut, error) {
	// Never "start afresh": an empty list would send to everyone on it.
	sf := stateFile{path: path, what: "the opt-out list",
		recovery: "restore it from a backup, or fix it by hand; until then no send on this account can go (moving it aside would send to everyone on it)"}
	var f optOutsFile
	if found, err := sf.read(&f, &f.Version, optOutsFileVersion); !found {
		return nil, err
	}
	for i, o := range f.OptOuts {
		if k, err := model.OptOutKey(o.Mobile); err != nil || k != o.Mobile {
			return nil, sf.corrupt(fmt.Sprintf("entry %d: %q is not a number in its stored form", i+1, model.SanitizeLine(o.Mobile)), err)
		}
	}
	return f.OptOuts, nil
}
