package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/smsdesk/smsdesk/model"
)

// Field limits as documented (names and descriptions of groups) or chosen for
// the sandbox (contact names).
const (
	maxGroupName   = 100
	maxGroupDesc   = 255
	maxContactName = 255
)

// groupJSON is a group as the service shows it.
type groupJSON struct {
	ID          int64   `json:"id"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	CreatedAt   string  `json:"created_at"`
}

func (g *group) view() groupJSON {
	return groupJSON{ID: g.ID, Name: g.Name, Description: nullable(g.Description), CreatedAt: timestamp(g.CreatedAt)}
}

// contactJSON is a contact as the service shows it; a contact without a name
// has "name": null.
type contactJSON struct {
	ID        int64   `json:"id"`
	GroupID   int64   `json:"group_id"`
	Name      *string `json:"name"`
	Mobile    string  `json:"mobile"`
	CreatedAt string  `json:"created_at"`
}

func (c *contact) view() contactJSON {
	return contactJSON{ID: c.ID, GroupID: c.GroupID, Name: nullable(c.Name), Mobile: c.Mobile, CreatedAt: timestamp(c.CreatedAt)}
}

// textField reads an optional JSON string: missing and null give "".
func textField(raw json.RawMessage, field string, maxRunes int, required bool, errs map[string][]string) string {
	var s string
	if len(raw) != 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &s); err != nil {
			errs[field] = append(errs[field], fmt.Sprintf("The %s must be a string.", field))
			return ""
		}
	}
	s = strings.TrimSpace(s)
	switch {
	case required && s == "":
		errs[field] = append(errs[field], fmt.Sprintf("The %s field is required.", field))
	case utf8.RuneCountInString(s) > maxRunes:
		errs[field] = append(errs[field], fmt.Sprintf("The %s may not be greater than %d characters.", field, maxRunes))
	}
	return s
}

// createGroup: POST /contact-groups {name, description?} → 201 group.
func (s *Server) createGroup(w http.ResponseWriter, r *http.Request, _ []string) {
	var req struct {
		Name        json.RawMessage `json:"name"`
		Description json.RawMessage `json:"description"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	errs := map[string][]string{}
	name := textField(req.Name, "name", maxGroupName, true, errs)
	desc := textField(req.Description, "description", maxGroupDesc, false, errs)
	if len(errs) > 0 {
		validationError(w, errs)
		return
	}
	s.mu.Lock()
	g := s.state.addGroup(name, desc, s.opts.Now()).view()
	s.mu.Unlock()
	s.changed()
	writeData(w, http.StatusCreated, g, nil)
}

// parseID reads a positive integer id from a JSON number or numeric string.
func parseID(raw json.RawMessage) (int64, bool) {
	t := strings.TrimSpace(string(raw))
	if strings.HasPrefix(t, `"`) {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		t = strings.TrimSpace(s)
	}
	return pathID(t)
}

// pathID reads a positive integer id from a path segment.
func pathID(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}

// addContact: POST /contacts {group_id, name?, mobile} → 201 contact.
func (s *Server) addContact(w http.ResponseWriter, r *http.Request, _ []string) {
	var req struct {
		GroupID json.RawMessage `json:"group_id"`
		Name    json.RawMessage `json:"name"`
		Mobile  json.RawMessage `json:"mobile"`
	}
	if !readJSON(w, r, &req) {
		return
	}
	errs := map[string][]string{}
	gid, ok := parseID(req.GroupID)
	switch {
	case len(req.GroupID) == 0 || string(req.GroupID) == "null":
		errs["group_id"] = []string{"The group_id field is required."}
	case !ok:
		errs["group_id"] = []string{"The group_id must be a positive integer."}
	}
	name := textField(req.Name, "name", maxContactName, false, errs)
	raw := textField(req.Mobile, "mobile", 64, true, errs)
	if len(errs) > 0 {
		validationError(w, errs)
		return
	}
	mobile, reason := iranianMobile(raw)
	if reason != "" {
		writeError(w, http.StatusUnprocessableEntity, "invalid_recipient", "invalid mobile: "+reason,
			map[string][]string{"mobile": {reason}})
		return
	}
	s.mu.Lock()
	if s.state.groupByID[gid] == nil {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("contact group %d not found", gid), nil)
		return
	}
	if s.state.hasMobile(gid, mobile) {
		s.mu.Unlock()
		writeError(w, http.StatusUnprocessableEntity, "duplicate_contact",
			fmt.Sprintf("%s is already in contact group %d", mobile, gid), map[string][]string{"mobile": {"already in this group"}})
		return
	}
	c := s.state.addContact(gid, name, mobile, s.opts.Now()).view()
	s.mu.Unlock()
	s.changed()
	writeData(w, http.StatusCreated, c, nil)
}

// iranianMobile normalises s to 09xxxxxxxxx, or says why it is not an Iranian
// mobile (the service sends only to those).
func iranianMobile(s string) (mobile, reason string) {
	m, err := model.NormalizeMobile(s, model.FormatLocal)
	if err != nil {
		var me *model.MobileError
		if errors.As(err, &me) && me.Reason != "" {
			return "", me.Reason
		}
		return "", err.Error()
	}
	if !strings.HasPrefix(m, "09") {
		return "", "not an Iranian mobile; this service sends only to Iranian mobiles (09xxxxxxxxx or +989xxxxxxxxx)"
	}
	return m, ""
}

// pageMeta and pageLinks are the paginator parts of a list answer.
type pageMeta struct {
	CurrentPage int `json:"current_page"`
	PerPage     int `json:"per_page"`
	Total       int `json:"total"`
	LastPage    int `json:"last_page"`
}

type pageLinks struct {
	First string  `json:"first"`
	Last  string  `json:"last"`
	Prev  *string `json:"prev"`
	Next  *string `json:"next"`
}

type pageJSON struct {
	Success bool          `json:"success"`
	Data    []contactJSON `json:"data"`
	Meta    pageMeta      `json:"meta"`
	Links   pageLinks     `json:"links"`
	Message *string       `json:"message"`
}

// listContacts: GET /contact-groups/{id}/contacts[?page=N&per_page=M] → a page.
func (s *Server) listContacts(w http.ResponseWriter, r *http.Request, seg []string) {
	q := r.URL.Query()
	errs := map[string][]string{}
	page := intParam(q, "page", 1, errs)
	perKey := "per_page"
	if !q.Has(perKey) && q.Has("limit") {
		perKey = "limit"
	}
	per := intParam(q, perKey, s.opts.PageSize, errs)
	if q.Has(perKey) {
		per = min(per, s.opts.MaxPerPage)
	}
	if len(errs) > 0 {
		validationError(w, errs)
		return
	}
	gid, ok := pathID(seg[1])
	s.mu.Lock()
	if !ok || s.state.groupByID[gid] == nil {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("contact group %s not found", seg[1]), nil)
		return
	}
	all := s.state.groupContacts(gid)
	from := len(all)
	if page-1 <= len(all)/per { // guards the product against overflow
		from = min((page-1)*per, len(all))
	}
	to := min(from+per, len(all))
	out := pageJSON{Success: true, Data: make([]contactJSON, 0, to-from)}
	for _, c := range all[from:to] {
		out.Data = append(out.Data, c.view())
	}
	s.mu.Unlock()

	last := max(1, (len(all)+per-1)/per)
	out.Meta = pageMeta{CurrentPage: page, PerPage: per, Total: len(all), LastPage: last}
	link := func(p int) string {
		v := url.Values{"page": {strconv.Itoa(p)}}
		if q.Has(perKey) && !s.opts.LinksWithoutPerPage {
			v.Set(perKey, strconv.Itoa(per))
		}
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		return scheme + "://" + r.Host + r.URL.Path + "?" + v.Encode()
	}
	out.Links = pageLinks{First: link(1), Last: link(last)}
	if page > 1 {
		p := link(min(page-1, last))
		out.Links.Prev = &p
	}
	if page < last {
		n := link(page + 1)
		out.Links.Next = &n
	}
	writeJSON(w, http.StatusOK, out)
}

// intParam reads a positive integer query parameter.
func intParam(q url.Values, key string, def int, errs map[string][]string) int {
	if !q.Has(key) {
		return def
	}
	n, err := strconv.Atoi(q.Get(key))
	if err != nil || n < 1 {
		errs[key] = []string{fmt.Sprintf("The %s must be a positive integer.", key)}
		return def
	}
	return n
}

// deleteContact: DELETE /contacts/{id} → 200 {"data":null,"message":"deleted"}.
func (s *Server) deleteContact(w http.ResponseWriter, _ *http.Request, seg []string) {
	id, ok := pathID(seg[1])
	s.mu.Lock()
	ok = ok && s.state.deleteContact(id)
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("contact %s not found", seg[1]), nil)
		return
	}
	s.changed()
	msg := "deleted"
	writeData(w, http.StatusOK, nil, &msg)
}
