package client

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/smsdesk/smsdesk/model"
)

// CreateGroup creates a contact group. When the service answers only an id,
// the rest of the record is filled from g. POST /contact-groups
func (c *Client) CreateGroup(ctx context.Context, g NewGroup) (model.Group, error) {
	if strings.TrimSpace(g.Name) == "" {
		return model.Group{}, errors.New("create group: the name is empty")
	}
	out := model.Group{Name: g.Name, Description: g.Description}
	r, res, err := c.post(ctx, "contact-groups", g)
	if err != nil {
		return out, err
	}
	rec, ok := documented[groupJSON](res.body)
	if !ok {
		v, err := c.decodeBody(r, res)
		if err != nil {
			return out, err
		}
		m := record(v, "group", "contact_group")
		rec = groupJSON{ID: idOf(m, namesGroupID...), Name: text(m, "name"), Description: text(m, "description")}
		rec.ID = cmp.Or(rec.ID, bareID(v))
	}
	out.ID = cmp.Or(rec.ID, idFromLocation(res.header))
	out.Name = cmp.Or(c.exact(rec.Name), out.Name)
	out.Description = cmp.Or(c.exact(rec.Description), out.Description)
	if out.ID.IsZero() {
		return out, fmt.Errorf("POST /contact-groups: %w: the group was probably created; find its id in the service's panel and track it (smsdesk groups track ID)", ErrMissingID)
	}
	return out, nil
}

// AddContact adds a contact to a group. When the service answers only an id,
// the rest of the record is filled from nc. POST /contacts
func (c *Client) AddContact(ctx context.Context, nc NewContact) (model.Contact, error) {
	switch {
	case nc.GroupID.IsZero():
		return model.Contact{}, errors.New("add contact: the group id is empty")
	case strings.TrimSpace(nc.Mobile) == "":
		return model.Contact{}, errors.New("add contact: the mobile number is empty")
	}
	out := model.Contact{GroupID: nc.GroupID, Name: nc.Name, Mobile: nc.Mobile}
	r, res, err := c.post(ctx, "contacts", nc)
	if err != nil {
		return out, err
	}
	got, ok := documented[contactJSON](res.body)
	if !ok {
		v, err := c.decodeBody(r, res)
		if err != nil {
			return out, err
		}
		got = c.contactFrom(record(v, "contact"))
		got.ID = cmp.Or(got.ID, bareID(v))
	}
	ct := c.contact(got)
	out.ID = cmp.Or(ct.ID, idFromLocation(res.header))
	out.GroupID = cmp.Or(ct.GroupID, out.GroupID)
	out.Name = cmp.Or(ct.Name, out.Name)
	out.Mobile = cmp.Or(ct.Mobile, out.Mobile)
	if out.ID.IsZero() {
		return out, fmt.Errorf("POST /contacts: %w: the contact was probably added; list the group to find it", ErrMissingID)
	}
	return out, nil
}

// groupJSON and contactJSON are the records the docs show.
type (
	groupJSON struct {
		ID          model.ID `json:"id"`
		Name        string   `json:"name"`
		Description string   `json:"description"`
		CreatedAt   string   `json:"created_at"`
	}
	contactJSON struct {
		ID        model.ID `json:"id"`
		GroupID   model.ID `json:"group_id"`
		Name      string   `json:"name"`
		Mobile    string   `json:"mobile"`
		CreatedAt string   `json:"created_at"`
	}
)

// contact is a contact record, sanitised.
func (c *Client) contact(j contactJSON) model.Contact {
	return model.Contact{ID: j.ID, GroupID: j.GroupID, Name: c.exact(j.Name), Mobile: c.exact(j.Mobile)}
}

// contactFrom reads a contact record in any spelling (the tolerant reader).
func (c *Client) contactFrom(m map[string]any) contactJSON {
	ct := contactJSON{
		ID:      idOf(m, namesContactID...),
		GroupID: idOf(m, namesGroupRef...),
		Name:    text(m, namesName...),
		Mobile:  text(m, namesMobile...),
	}
	if ct.GroupID == "" {
		if g, ok := find(m, "group").(map[string]any); ok {
			ct.GroupID = idOf(g, namesGroupID...)
		} else {
			ct.GroupID = model.ID(textOf(find(m, "group")))
		}
	}
	if ct.Name == "" {
		ct.Name = strings.TrimSpace(text(m, "first_name") + " " + text(m, "last_name"))
	}
	return ct
}

// bareID reads an answer that is only an id: 15, "abc", {"data":15}.
func bareID(v any) model.ID {
	if m, ok := v.(map[string]any); ok {
		v = m["data"]
	}
	return model.ID(textOf(v))
}

// post sends a create request (with a fresh Idempotency-Key; retried only
// when it provably did not reach the service).
func (c *Client) post(ctx context.Context, rel string, body any) (*request, *response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, nil, fmt.Errorf("POST /%s: %w", rel, err)
	}
	r := &request{method: http.MethodPost, u: c.resolve(rel), body: b, idemKey: newIdempotencyKey(), policy: retryUnsent}
	res, err := c.do(ctx, r)
	return r, res, err
}

// DeleteContact deletes a contact. A 200 with any body, 202 and 204 all mean
// deleted; so does a 404 on a retry after an attempt whose outcome was unknown.
// DELETE /contacts/{id}
func (c *Client) DeleteContact(ctx context.Context, id model.ID) error {
	if id.IsZero() {
		return errors.New("delete contact: the contact id is empty")
	}
	r := &request{method: http.MethodDelete, u: c.resolve("contacts/" + url.PathEscape(id.String())), policy: retrySafe}
	res, err := c.do(ctx, r)
	if err != nil {
		if r.maybeApplied && errors.Is(err, ErrNotFound) {
			return nil // an earlier attempt deleted it
		}
		return err
	}
	// Any 2xx body means deleted, unless it says success:false.
	var ae *APIError
	if _, derr := c.decodeBody(r, res); errors.As(derr, &ae) {
		return ae
	}
	return nil
}

// Verify checks that the service accepts the key with a harmless authenticated
// read of one page (GET /contact-groups/0/contacts). 401 or 403 returns the
// *APIError (the key is refused); a network failure returns its error. The
// key counts as accepted only on an answer with the API's shape: a list or
// the envelope ({"success", "data"}) for a 2xx, the API's error envelope
// ({"success": false} or an error_code) for the 404 of group 0. A web page,
// a bare JSON 404 (a server that answers every path so) or anything else is
// ErrNotAPI: no smsdesk API at this base URL.
func (c *Client) Verify(ctx context.Context) error {
	r := &request{method: http.MethodGet, u: c.resolve("contact-groups/0/contacts"), policy: retrySafe}
	res, err := c.do(ctx, r)
	path := c.shortPath(r.u)
	var ae *APIError
	switch {
	case err == nil:
		if looksHTML(res.header, res.body) {
			return notAPI(path, res.status, "a web page")
		}
		if !apiShaped(res.body) {
			return notAPI(path, res.status, "JSON that is not the API's")
		}
		return nil
	case !errors.As(err, &ae):
		return err
	case ae.Status == http.StatusUnauthorized || ae.Status == http.StatusForbidden:
		return err
	case ae.Status >= 500 || ae.Status == http.StatusTooManyRequests:
		return err // no verdict on the key
	}
	return c.verifyRefusal(ctx, path, ae)
}

// verifyRefusal judges a 4xx (not 401 or 403) answer to the key check: the
// API's "no group 0" means the key was accepted; a web page, something that
// is not JSON, or the 404 a server gives for any path means no API here.
func (c *Client) verifyRefusal(ctx context.Context, path string, ae *APIError) error {
	snip := strings.TrimSpace(ae.Snippet)
	switch {
	case strings.HasPrefix(strings.ToLower(snip), "<"):
		return notAPI(path, ae.Status, "a web page")
	case !strings.HasPrefix(snip, "{"):
		return notAPI(path, ae.Status, "something that is not JSON")
	case ae.Status != http.StatusNotFound || ae.Code != "" || strings.Contains(snip, `"success"`):
		return nil // the API's envelope, or a 400/422 judging the id: the route is there
	}
	// A 404 without the envelope may be a deployment's own error style, or a
	// server that has no such route and answers every path so: the credit
	// endpoint tells them apart (it answers on the API; a bare 404 again
	// means there is no API here).
	if c.answersEveryPath(ctx, ae, snip) {
		if _, cerr := c.Credit(ctx); cerr != nil {
			return notAPI(path, ae.Status, "the 404 a server gives for any path")
		}
	}
	return nil
}

// answersEveryPath reports whether a 404 for group 0 is the server's answer
// to any path rather than the API's "no such group": it names the route
// itself, or a path no API has gets the very same answer.
func (c *Client) answersEveryPath(ctx context.Context, ae *APIError, snip string) bool {
	if strings.Contains(snip, "contact-groups/0/contacts") {
		return true
	}
	r := &request{method: http.MethodGet, u: c.resolve("smsdesk-probe-no-such-path"), policy: retrySafe}
	_, err := c.do(ctx, r)
	var other *APIError
	return errors.As(err, &other) && other.Status == ae.Status && strings.TrimSpace(other.Snippet) == snip
}

// apiShaped reports whether a 2xx body is an answer of the API: a list, or
// an envelope with success or data.
func apiShaped(body []byte) bool {
	b := bytes.TrimSpace(body)
	if len(b) == 0 || !json.Valid(b) {
		return false
	}
	if b[0] == '[' {
		return true
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	_, success := m["success"]
	_, data := m["data"]
	return success || data
}

// SiblingBaseURLs are the other documented forms of a base URL, to try when
// it has no API behind it: https://host/v1 ↔ https://host/api/v1, and both
// for a bare host.
func SiblingBaseURLs(base string) []string {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(base), "/"))
	if err != nil || u.Host == "" {
		return nil
	}
	p := strings.TrimRight(u.Path, "/")
	var paths []string
	switch {
	case strings.HasSuffix(p, "/api/v1"):
		paths = []string{strings.TrimSuffix(p, "/api/v1") + "/v1"}
	case strings.HasSuffix(p, "/v1"):
		paths = []string{strings.TrimSuffix(p, "/v1") + "/api/v1"}
	default:
		paths = []string{p + "/api/v1", p + "/v1"}
	}
	out := make([]string, len(paths))
	for i, sp := range paths {
		v := *u
		v.Path = sp
		out[i] = v.String()
	}
	return out
}

// ErrNotAPI is returned by Verify when the base URL answers, but not as the
// service's API does (a web page, a proxy's error, a mistyped path).
var ErrNotAPI = errors.New("the base URL did not answer as the API does")

func notAPI(path string, status int, what string) error {
	return fmt.Errorf("%w: no smsdesk API at this base URL — is it /api/v1? (GET %s answered %d with %s)", ErrNotAPI, path, status, what)
}
