package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// Once-only sends (send-pair --once ID) are kept per account, as the
// opt-out list is: every profile and every operator sending through one
// account of the service shares them. accounts/<id>/once.json (0600) lists
// every id used, with the send made under it and its pairs' digest; it is
// written under the send-start lock (LockSendStart) together with the
// send's journal, so that two runs with one id send once. A damaged file is
// an error, never an empty list: that would send again.

const onceFileVersion = 1

// OnceSend is a once-only id used: the send made under it, and what it sent.
type OnceSend struct {
	ID     string    `json:"id"`      // the once-only id, as given
	SendID string    `json:"send_id"` // the send's journal
	Pairs  string    `json:"pairs"`   // model.PairsDigest of its plan
	Count  int       `json:"count"`   // its plan's items
	Source string    `json:"source"`  // where its rows came from
	Time   time.Time `json:"time"`
	// Profile and Operator made it (Operator on a served console).
	Profile  string `json:"profile"`
	Operator string `json:"operator,omitempty"`
}

type onceFile struct {
	Version int        `json:"version"`
	Sends   []OnceSend `json:"sends"`
}

// OnceFile is the account's once-only ids.
func (p Paths) OnceFile(account string) (string, error) {
	dir, err := p.AccountDir(account)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "once.json"), nil
}

// FindOnce looks up a once-only id of the account.
func FindOnce(p Paths, account, id string) (OnceSend, bool, error) {
	path, err := p.OnceFile(account)
	if err != nil {
		return OnceSend{}, false, err
	}
	list, err := readOnce(path)
	if err != nil {
		return OnceSend{}, false, err
	}
	i := slices.IndexFunc(list, func(o OnceSend) bool { return o.ID == id })
	if i < 0 {
		return OnceSend{}, false, nil
	}
	return list[i], true, nil
}

// RecordOnce records that o.ID was used by o.SendID. It refuses an id the
// account has used already (the caller holds LockSendStart and has looked).
func RecordOnce(p Paths, account string, o OnceSend) error {
	return updateOnce(p, account, func(list []OnceSend) ([]OnceSend, error) {
		if i := slices.IndexFunc(list, func(e OnceSend) bool { return e.ID == o.ID }); i >= 0 {
			return nil, fmt.Errorf("once-only id %q was used by send %s already", model.SanitizeLine(o.ID), list[i].SendID)
		}
		return append(list, o), nil
	})
}

// ForgetOnce takes back id's record for sendID: a send that could not
// start after its id was recorded sent nothing.
func ForgetOnce(p Paths, account, id, sendID string) error {
	return updateOnce(p, account, func(list []OnceSend) ([]OnceSend, error) {
		return slices.DeleteFunc(list, func(e OnceSend) bool { return e.ID == id && e.SendID == sendID }), nil
	})
}

// FreeOnceSend takes back every once-only id that send sendID used (a
// scheduled send cancelled before its time sent nothing: its id may be
// used again) and returns them. An account with no ids is not written.
func FreeOnceSend(p Paths, account, sendID string) ([]string, error) {
	path, err := p.OnceFile(account)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var freed []string
	err = updateOnce(p, account, func(list []OnceSend) ([]OnceSend, error) {
		return slices.DeleteFunc(list, func(e OnceSend) bool {
			if e.SendID == sendID {
				freed = append(freed, e.ID)
				return true
			}
			return false
		}), nil
	})
	return freed, err
}

func updateOnce(p Paths, account string, modify func([]OnceSend) ([]OnceSend, error)) error {
	path, err := p.OnceFile(account)
	if err != nil {
		return err
	}
	return rewriteUnderLock(path, readOnce, func(list []OnceSend) ([]OnceSend, bool, error) {
		list, err := modify(list)
		return list, err == nil, err
	}, func(list []OnceSend) any { return onceFile{Version: onceFileVersion, Sends: list} })
}

func readOnce(path string) ([]OnceSend, error) {
	sf := stateFile{path: path, what: "the once-only send ids",
		recovery: "restore it from a backup, or fix it by hand; until then no send with --once can go on this account (moving it aside would let a once-only send go again)"}
	var f onceFile
	if found, err := sf.read(&f, &f.Version, onceFileVersion); !found {
		return nil, err
	}
	for i, o := range f.Sends {
		if o.ID == "" || o.SendID == "" {
			return nil, sf.corrupt(fmt.Sprintf("entry %d has no id or no send", i+1), nil)
		}
	}
	return f.Sends, nil
}
