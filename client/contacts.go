package client

import (
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
