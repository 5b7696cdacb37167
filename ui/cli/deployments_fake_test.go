package cli

// The CLI against independent deployments of the service. fakeService is written
// from the service's public description (BRIEF.md, issue 2), not from the client
// or the sandbox: each deployment differs in body shapes, paging, id types, the
// base URL form operators paste, error bodies, DELETE answers, rate limits and
// send-pair answers. It ignores Idempotency-Key on purpose, and counts every
// create and every processed pair, so that anything sent twice shows.

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// deployment describes one deployment of the service.
type deployment struct {
	mount      string        // where the API lives on the server: "/v1" or "/api/v1"
	base       string        // what the operator pastes after http://127.0.0.1:PORT
	wrap       string        // "envelope" (documented), "bare" or "data"
	ids        string        // "int", "string" or "huge" (past float64's exact range)
	contactKey string        // the contact id field: "id" or "contact_id"
	nullNames  bool          // a contact without a name has "name": null
	e164       bool          // the service keeps mobiles as +98…
	paging     string        // "meta", "pages", "nested" or "link"
	delete204  bool          // DELETE answers 204 without a body
	errors     string        // "envelope", "problem", "laravel" or "errorobj"
	proxy502   bool          // a proxy answers 502 with an HTML page (for proxyTrigger)
	send       string        // "index", "by-recipient", "recipient-map", "opaque", "batch" or "drop"
	limit      int           // requests per window; 0: no limit
	window     time.Duration // the rate-limit window
	quiet429   bool          // no X-RateLimit-* headers: only a 429 with Retry-After tells
}

const (
	fakeSender   = "3000505"
	perPage      = 3
	blacklisted  = "09129999999" // the service rejects this recipient
	proxyTrigger = "09125555502" // the proxy in front of the service fails this add
)

var mobilePattern = regexp.MustCompile(`^(09\d{9}|\+989\d{9})$`)

type fakeGroup struct{ id, name, description string }

type fakeContact struct{ id, group, name, mobile string }

// fakeService is one stateful deployment.
type fakeService struct {
	d  deployment
	mu sync.Mutex

	seq       int64
	groups    map[string]*fakeGroup
	contacts  []*fakeContact
	created   map[string]int // group + mobile → adds that reached the store
	groupsNew map[string]int // group name → creates
	deleted   map[string]int // contact id → deletions
	sent      map[string]int // recipient + message → times processed
	messages  map[string]string
	sendCalls int
	requests  int
	throttled int
	winStart  time.Time
	winCount  int
	now       func() time.Time // the clock of its rate windows
}

func newFakeService(d deployment) *fakeService {
	return &fakeService{d: d, groups: map[string]*fakeGroup{}, created: map[string]int{}, groupsNew: map[string]int{},
		deleted: map[string]int{}, sent: map[string]int{}, messages: map[string]string{}, now: time.Now}
}

// newID issues the deployment's kind of id.
func (f *fakeService) newID(prefix string) string {
	f.seq++
	switch f.d.ids {
	case "string":
		return fmt.Sprintf("%s_01HZXQ8M4K%06d", prefix, f.seq)
	case "huge":
		return strconv.FormatInt(9007199254740993+2*f.seq, 10) // odd: float64 cannot hold it
	}
	return strconv.FormatInt(100+f.seq, 10)
}

// idValue writes an id as the deployment does: a JSON number or a string.
func (f *fakeService) idValue(id string) any {
	if f.d.ids == "string" {
		return id
	}
	return json.Number(id)
}

func (f *fakeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests++
	if f.d.limit > 0 && !f.admit(w) {
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, f.d.mount+"/")
	if !ok {
		f.fail(w, http.StatusNotFound, "not_found", "No such route.", "")
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+testKey {
		f.fail(w, http.StatusUnauthorized, "unauthorized", "The API key is not valid.", "")
		return
	}
	seg := strings.Split(rest, "/")
	switch {
	case r.Method == http.MethodPost && rest == "contact-groups":
		f.createGroup(w, r)
	case r.Method == http.MethodPost && rest == "contacts":
		f.addContact(w, r)
	case r.Method == http.MethodGet && len(seg) == 3 && seg[0] == "contact-groups" && seg[2] == "contacts":
		f.listContacts(w, r, seg[1])
	case r.Method == http.MethodDelete && len(seg) == 2 && seg[0] == "contacts":
		f.deleteContact(w, seg[1])
	case r.Method == http.MethodPost && rest == "sms/send-pair":
		f.sendPair(w, r)
	case r.Method == http.MethodGet && len(seg) == 3 && seg[0] == "sms" && seg[2] == "status":
		f.messageStatus(w, seg[1])
	default:
		f.fail(w, http.StatusNotFound, "not_found", "No such route.", "")
	}
}

// admit keeps a fixed-window rate limit, with X-RateLimit-* on every answer.
func (f *fakeService) admit(w http.ResponseWriter) bool {
	now := f.now()
	if now.Sub(f.winStart) >= f.d.window {
		f.winStart, f.winCount = now, 0
	}
	f.winCount++
	reset := strconv.Itoa(int(math.Ceil(f.d.window.Seconds() - now.Sub(f.winStart).Seconds())))
	h := w.Header()
	if !f.d.quiet429 {
		h.Set("X-RateLimit-Limit", strconv.Itoa(f.d.limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(max(f.d.limit-f.winCount, 0)))
		h.Set("X-RateLimit-Reset", reset)
	}
	if f.winCount <= f.d.limit {
		return true
	}
	f.throttled++
	h.Set("Retry-After", reset)
	f.fail(w, http.StatusTooManyRequests, "rate_limited", "Too many requests.", "")
	return false
}

func writeJSON(w http.ResponseWriter, status int, contentType string, v any) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// reply writes a success in the deployment's shape.
func (f *fakeService) reply(w http.ResponseWriter, status int, payload any) {
	body := payload
	switch f.d.wrap {
	case "envelope":
		body = map[string]any{"success": true, "data": payload, "message": nil}
	case "data":
		body = map[string]any{"data": payload}
	}
	writeJSON(w, status, "application/json", body)
}

// fail writes an error in the deployment's shape.
func (f *fakeService) fail(w http.ResponseWriter, status int, code, msg, field string) {
	switch f.d.errors {
	case "problem":
		writeJSON(w, status, "application/problem+json", map[string]any{
			"type": "https://docs.example.com/problems/" + code, "title": http.StatusText(status), "status": status, "detail": msg})
	case "laravel":
		body := map[string]any{"message": msg}
		if field != "" {
			body["errors"] = map[string][]string{field: {msg}}
		}
		writeJSON(w, status, "application/json", body)
	case "errorobj":
		writeJSON(w, status, "application/json", map[string]any{"error": map[string]any{"code": code, "message": msg}})
	default:
		writeJSON(w, status, "application/json", map[string]any{"success": false, "error_code": code, "message": msg})
	}
}

func readBody(r *http.Request) (map[string]any, error) {
	d := json.NewDecoder(r.Body)
	d.UseNumber()
	var m map[string]any
	err := d.Decode(&m)
	return m, err
}

// idText reads an id the client sent, as a number or a string.
func idText(v any) string {
	switch x := v.(type) {
	case json.Number:
		return x.String()
	case string:
		return x
	}
	return ""
}

func (f *fakeService) createGroup(w http.ResponseWriter, r *http.Request) {
	m, err := readBody(r)
	name, _ := m["name"].(string)
	if err != nil || name == "" {
		f.fail(w, http.StatusUnprocessableEntity, "validation_error", "The name field is required.", "name")
		return
	}
	desc, _ := m["description"].(string)
	g := &fakeGroup{id: f.newID("grp"), name: name, description: desc}
	f.groups[g.id] = g
	f.groupsNew[name]++
	f.reply(w, http.StatusCreated, map[string]any{"id": f.idValue(g.id), "name": g.name, "description": g.description})
}

func (f *fakeService) contactRecord(c *fakeContact) map[string]any {
	m := map[string]any{f.d.contactKey: f.idValue(c.id), "group_id": f.idValue(c.group), "mobile": c.mobile,
		"name": c.name, "created_at": "2026-01-02T15:04:05Z"}
	if c.name == "" && f.d.nullNames {
		m["name"] = nil
	}
	return m
}

func (f *fakeService) addContact(w http.ResponseWriter, r *http.Request) {
	m, err := readBody(r)
	if err != nil {
		f.fail(w, http.StatusBadRequest, "bad_request", "The body is not JSON.", "")
		return
	}
	mobile, _ := m["mobile"].(string)
	name, _ := m["name"].(string)
	group := idText(m["group_id"])
	if f.d.proxy502 && mobile == proxyTrigger {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprint(w, "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body><center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n<script>alert(1)</script></body>\r\n</html>\r\n")
		return
	}
	if f.groups[group] == nil {
		f.fail(w, http.StatusUnprocessableEntity, "invalid_group", "The selected group is invalid.", "group_id")
		return
	}
	if !mobilePattern.MatchString(mobile) {
		f.fail(w, http.StatusUnprocessableEntity, "invalid_recipient", "The mobile format is invalid.", "mobile")
		return
	}
	if f.d.e164 && strings.HasPrefix(mobile, "0") {
		mobile = "+98" + mobile[1:]
	}
	key := group + "\x00" + mobile
	f.created[key]++
	if f.created[key] > 1 {
		f.fail(w, http.StatusUnprocessableEntity, "duplicate", "The mobile has already been taken.", "mobile")
		return
	}
	c := &fakeContact{id: f.newID("c"), group: group, name: name, mobile: mobile}
	f.contacts = append(f.contacts, c)
	f.reply(w, http.StatusCreated, f.contactRecord(c))
}

func (f *fakeService) groupContacts(group string) []*fakeContact {
	var out []*fakeContact
	for _, c := range f.contacts {
		if c.group == group {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeService) listContacts(w http.ResponseWriter, r *http.Request, group string) {
	if f.groups[group] == nil {
		f.fail(w, http.StatusNotFound, "not_found", "Group not found.", "")
		return
	}
	all := f.groupContacts(group)
	last := max(1, (len(all)+perPage-1)/perPage)
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if c := r.URL.Query().Get("cursor"); c != "" {
		page, _ = strconv.Atoi(strings.TrimPrefix(c, "after-"))
	}
	page = max(page, 1)
	items := []any{}
	for _, c := range all[min((page-1)*perPage, len(all)):min(page*perPage, len(all))] {
		items = append(items, f.contactRecord(c))
	}
	self := "http://" + r.Host + r.URL.Path
	var next any
	if page < last {
		next = self + "?page=" + strconv.Itoa(page+1)
	}
	switch f.d.paging {
	case "meta":
		writeJSON(w, http.StatusOK, "application/json", map[string]any{"success": true, "data": items, "message": nil,
			"meta":  map[string]any{"current_page": page, "last_page": last, "per_page": perPage, "total": len(all)},
			"links": map[string]any{"first": self + "?page=1", "next": next}})
	case "pages":
		writeJSON(w, http.StatusOK, "application/json", map[string]any{"results": items, "page": page, "total_pages": last})
	case "nested":
		writeJSON(w, http.StatusOK, "application/json", map[string]any{"data": map[string]any{"current_page": page, "data": items,
			"next_page_url": next, "last_page": last, "per_page": perPage, "total": len(all), "path": self}})
	case "link":
		if page < last {
			w.Header().Set("Link", fmt.Sprintf(`<%s?cursor=after-%d>; rel="next", <%s>; rel="first"`, self, page+1, self))
		}
		writeJSON(w, http.StatusOK, "application/json", items)
	}
}

func (f *fakeService) deleteContact(w http.ResponseWriter, id string) {
	i := slices.IndexFunc(f.contacts, func(c *fakeContact) bool { return c.id == id })
	if i < 0 {
		f.fail(w, http.StatusNotFound, "not_found", "Contact not found.", "")
		return
	}
	f.contacts = slices.Delete(f.contacts, i, i+1)
	f.deleted[id]++
	if f.d.delete204 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	f.reply(w, http.StatusOK, map[string]any{"deleted": true, "id": f.idValue(id)})
}

func (f *fakeService) sendPair(w http.ResponseWriter, r *http.Request) {
	f.sendCalls++
	var req struct {
		Sender string `json:"sender"`
		Items  []struct{ Recipient, Message string }
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Items) == 0 {
		f.fail(w, http.StatusUnprocessableEntity, "validation_error", "The items field is required.", "items")
		return
	}
	if req.Sender != fakeSender {
		f.fail(w, http.StatusForbidden, "sender_not_allowed", "The sender line is not allowed for this account.", "sender")
		return
	}
	var results []map[string]any
	for i, it := range req.Items {
		res := map[string]any{"index": i, "recipient": it.Recipient}
		if it.Recipient == blacklisted || !mobilePattern.MatchString(it.Recipient) {
			res["status"], res["error"] = "rejected", map[string]any{"code": "invalid_recipient", "message": "The recipient is blacklisted."}
		} else {
			f.sent[it.Recipient+"\x00"+it.Message]++
			id := f.newID("msg")
			f.messages[id] = it.Recipient
			res["status"], res["message_id"] = "accepted", f.idValue(id)
		}
		results = append(results, res)
	}
	switch f.d.send {
	case "index":
		f.reply(w, http.StatusOK, map[string]any{"items": results})
	case "by-recipient": // no index, reversed, numbers in E.164
		slices.Reverse(results)
		for _, res := range results {
			delete(res, "index")
			res["recipient"] = "+98" + strings.TrimPrefix(res["recipient"].(string), "0")
		}
		f.reply(w, http.StatusOK, map[string]any{"results": results})
	case "recipient-map":
		byRcpt := map[string]any{}
		for _, res := range results {
			rc := res["recipient"].(string)
			delete(res, "index")
			delete(res, "recipient")
			byRcpt[rc] = res
		}
		f.reply(w, http.StatusOK, map[string]any{"results": byRcpt})
	case "opaque": // processed, answered in a shape no documentation describes
		outcome := map[string][]string{}
		for _, res := range results {
			outcome[res["status"].(string)] = append(outcome[res["status"].(string)], res["recipient"].(string))
		}
		f.reply(w, http.StatusOK, map[string]any{"outcome": outcome})
	case "batch":
		f.reply(w, http.StatusAccepted, map[string]any{"batch_id": "batch-" + strconv.Itoa(f.sendCalls), "queued": len(req.Items)})
	case "drop": // processed, then the connection dies before the answer
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
	}
}

func (f *fakeService) messageStatus(w http.ResponseWriter, id string) {
	if _, ok := f.messages[id]; !ok {
		f.fail(w, http.StatusNotFound, "not_found", "Message not found.", "")
		return
	}
	f.reply(w, http.StatusOK, map[string]any{"message_id": f.idValue(id), "status": "delivered"})
}

// twice lists the creates and sends that reached the store more than once.
func (f *fakeService) twice() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, m := range []map[string]int{f.created, f.groupsNew, f.deleted, f.sent} {
		for k, n := range m {
			if n > 1 {
				out = append(out, fmt.Sprintf("%q ×%d", k, n))
			}
		}
	}
	return out
}

func (f *fakeService) snapshot() (contacts []fakeContact, requests, throttled, sendCalls int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.contacts {
		contacts = append(contacts, *c)
	}
	return contacts, f.requests, f.throttled, f.sendCalls
}
