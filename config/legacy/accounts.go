package legacy

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// The file store kept an account's opt-out list and once-only ids under
// accounts/<account>/, the account being model.AccountID (the service's
// host and the key, digested).
const (
	optOutsName = "optouts.json"
	onceName    = "once.json"
)

// OnceSend is a once-only id used (send-pair --once ID): the send made
// under it and what it sent, as the file store kept it (config.OnceSend).
type OnceSend struct {
	ID       string    `json:"id"`
	SendID   string    `json:"send_id"`
	Pairs    string    `json:"pairs"` // model.PairsDigest of its plan
	Count    int       `json:"count"`
	Source   string    `json:"source"`
	Time     time.Time `json:"time"`
	Profile  string    `json:"profile"`
	Operator string    `json:"operator,omitempty"`
	// Account is the directory it was read from (not in the file).
	Account string `json:"-"`
}

func readAccounts(s *Snapshot) error {
	dir := filepath.Join(s.Dir, "accounts")
	accounts, err := readDir(dir)
	if err != nil {
		return err
	}
	for _, a := range accounts {
		path := filepath.Join(dir, a.Name())
		if !a.IsDir() {
			s.Files = append(s.Files, s.rel(path))
			s.note("%s is not the file store's: not read, moved aside with the rest", s.rel(path))
			continue
		}
		if err := readAccount(s, path, a.Name()); err != nil {
			return err
		}
	}
	s.OptOuts = mergeOptOuts(s.OptOuts)
	s.Once = mergeOnce(s.Once)
	return nil
}

func readAccount(s *Snapshot, dir, account string) error {
	entries, err := readDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		if (name == optOutsName || name == onceName) && movedListAt(path) {
			continue // an upgrade's note where the list was
		}
		s.Files = append(s.Files, s.rel(path))
		switch {
		case e.IsDir():
			s.note("%s is not the file store's: not read, moved aside with the rest", s.rel(path))
		case name == optOutsName:
			list, err := readOptOuts(s, path)
			if err != nil {
				return err
			}
			s.OptOutsRead += len(list)
			s.OptOuts = append(s.OptOuts, list...)
		case name == onceName:
			list, err := readOnce(s, path, account)
			if err != nil {
				return err
			}
			s.OnceRead += len(list)
			s.Once = append(s.Once, list...)
		case filepath.Ext(name) == lockExt || isTemp(name):
		default:
			s.note("%s is not the file store's: not read, moved aside with the rest", s.rel(path))
		}
	}
	return nil
}

// readOptOuts reads one account's opt-out list. A list that is missing from
// its file, null, or holds a number not in its stored form is an error:
// read as empty, it would send to everyone on it.
func readOptOuts(s *Snapshot, path string) ([]model.OptOut, error) {
	f := listFile{path: path, key: "optouts", version: 1, what: "an opt-out list",
		empty: "read as empty, it would send to everyone on it"}
	var list []model.OptOut
	err := f.read(s, func(line int, raw json.RawMessage) error {
		var o model.OptOut
		if err := f.element(line, raw, &o); err != nil {
			return err
		}
		if k, err := model.OptOutKey(o.Mobile); err != nil || k != o.Mobile {
			return &Error{Path: path, Line: line, Problem: fmt.Sprintf("%q is not a number in its stored form", o.Mobile), Err: err}
		}
		list = append(list, o)
		return nil
	})
	return list, err
}

// readOnce reads one account's once-only ids.
func readOnce(s *Snapshot, path, account string) ([]OnceSend, error) {
	f := listFile{path: path, key: "sends", version: 1, what: "the once-only ids",
		empty: "read as empty, a once-only send could go again"}
	var list []OnceSend
	err := f.read(s, func(line int, raw json.RawMessage) error {
		var o OnceSend
		if err := f.element(line, raw, &o); err != nil {
			return err
		}
		if o.ID == "" || o.SendID == "" {
			return &Error{Path: path, Line: line, Problem: "an entry with no id or no send"}
		}
		o.Account = account
		list = append(list, o)
		return nil
	})
	return list, err
}

// mergeOptOuts makes one list of every account's: one entry per number and
// line (an entry for every line and one for a line are two), the earliest
// added kept, sorted by number and line.
func mergeOptOuts(all []model.OptOut) []model.OptOut {
	slices.SortStableFunc(all, func(a, b model.OptOut) int {
		return cmp.Or(cmp.Compare(a.Mobile, b.Mobile), cmp.Compare(a.Sender, b.Sender), a.Added.Compare(b.Added))
	})
	return slices.CompactFunc(all, func(a, b model.OptOut) bool {
		return a.Mobile == b.Mobile && a.Sender == b.Sender
	})
}

// mergeOnce keeps one use of each once-only id, the earliest (the same id
// used on two accounts, under two keys: any use refuses it again), sorted by
// time.
func mergeOnce(all []OnceSend) []OnceSend {
	slices.SortStableFunc(all, func(a, b OnceSend) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), a.Time.Compare(b.Time))
	})
	all = slices.CompactFunc(all, func(a, b OnceSend) bool { return a.ID == b.ID })
	slices.SortStableFunc(all, func(a, b OnceSend) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.ID, b.ID))
	})
	return all
}
