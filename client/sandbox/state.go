package sandbox

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// stateVersion is written to DataFile; a file of another version is refused.
const stateVersion = 1

// state is everything the sandbox knows. Guarded by Server.mu.
type state struct {
	Version       int        `json:"version"`
	NextGroupID   int64      `json:"next_group_id"`
	NextContactID int64      `json:"next_contact_id"`
	NextMessageID int64      `json:"next_message_id"`
	NextBatchID   int64      `json:"next_batch_id"`
	Groups        []*group   `json:"groups"`
	Contacts      []*contact `json:"contacts"`
	Messages      []*message `json:"messages"`
	// Credit is the SMS parts the account can still send; nil means
	// DefaultCredit (a store written before credit existed).
	Credit *int64 `json:"credit,omitempty"`

	groupByID   map[int64]*group
	contactByID map[int64]*contact
	messageByID map[string]*message
}

type group struct {
	ID          int64     `json:"id"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	CreatedAt   time.Time `json:"created_at"`
}

type contact struct {
	ID        int64     `json:"id"`
	GroupID   int64     `json:"group_id"`
	Name      string    `json:"name"`
	Mobile    string    `json:"mobile"`
	CreatedAt time.Time `json:"created_at"`
}

type message struct {
	ID        string    `json:"message_id"`
	BatchID   string    `json:"batch_id"`
	Sender    string    `json:"sender"`
	Recipient string    `json:"recipient"`
	Message   string    `json:"message"`
	At        time.Time `json:"at"`
}

func newState() *state {
	st := &state{Version: stateVersion, NextGroupID: 1, NextContactID: 1, NextMessageID: 1, NextBatchID: 1}
	st.index()
	return st
}

// index rebuilds the lookup maps and repairs next-id counters so they never
// reuse an id already present.
func (st *state) index() {
	st.groupByID = make(map[int64]*group, len(st.Groups))
	st.contactByID = make(map[int64]*contact, len(st.Contacts))
	st.messageByID = make(map[string]*message, len(st.Messages))
	for _, g := range st.Groups {
		st.groupByID[g.ID] = g
		st.NextGroupID = max(st.NextGroupID, g.ID+1)
	}
	for _, c := range st.Contacts {
		st.contactByID[c.ID] = c
		st.NextContactID = max(st.NextContactID, c.ID+1)
	}
	for _, m := range st.Messages {
		st.messageByID[m.ID] = m
	}
	st.NextMessageID = max(st.NextMessageID, int64(len(st.Messages))+1)
}

// validate checks a state read from a file, so a hand-edited file cannot leave
// the sandbox inconsistent.
func (st *state) validate() error {
	if st.Version != stateVersion {
		return fmt.Errorf("version %d, this sandbox reads version %d", st.Version, stateVersion)
	}
	groups := map[int64]bool{}
	for i, g := range st.Groups {
		if g == nil || g.ID <= 0 || groups[g.ID] {
			return fmt.Errorf("groups[%d]: missing, non-positive or duplicate id", i)
		}
		groups[g.ID] = true
	}
	contacts := map[int64]bool{}
	for i, c := range st.Contacts {
		if c == nil || c.ID <= 0 || contacts[c.ID] {
			return fmt.Errorf("contacts[%d]: missing, non-positive or duplicate id", i)
		}
		if !groups[c.GroupID] {
			return fmt.Errorf("contacts[%d]: group %d does not exist", i, c.GroupID)
		}
		contacts[c.ID] = true
	}
	msgs := map[string]bool{}
	for i, m := range st.Messages {
		if m == nil || m.ID == "" || msgs[m.ID] {
			return fmt.Errorf("messages[%d]: missing or duplicate message_id", i)
		}
		msgs[m.ID] = true
	}
	return nil
}

func (st *state) marshal() ([]byte, error) {
	return json.MarshalIndent(st, "", " ")
}

func (st *state) addGroup(name, desc string, at time.Time) *group {
	g := &group{ID: st.NextGroupID, Name: name, Description: desc, CreatedAt: at}
	st.NextGroupID++
	st.Groups = append(st.Groups, g)
	st.groupByID[g.ID] = g
	return g
}

// hasMobile reports whether group gid already holds mobile.
func (st *state) hasMobile(gid int64, mobile string) bool {
	for _, c := range st.Contacts {
		if c.GroupID == gid && c.Mobile == mobile {
			return true
		}
	}
	return false
}

func (st *state) addContact(gid int64, name, mobile string, at time.Time) *contact {
	c := &contact{ID: st.NextContactID, GroupID: gid, Name: name, Mobile: mobile, CreatedAt: at}
	st.NextContactID++
	st.Contacts = append(st.Contacts, c)
	st.contactByID[c.ID] = c
	return c
}

func (st *state) deleteContact(id int64) bool {
	if _, ok := st.contactByID[id]; !ok {
		return false
	}
	delete(st.contactByID, id)
	st.Contacts = slices.DeleteFunc(st.Contacts, func(c *contact) bool { return c.ID == id })
	return true
}

// groupContacts returns the contacts of group gid in id order.
func (st *state) groupContacts(gid int64) []*contact {
	var out []*contact
	for _, c := range st.Contacts {
		if c.GroupID == gid {
			out = append(out, c)
		}
	}
	return out
}
