package client

import (
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
	m, id, err := c.create(ctx, "contact-groups", g, groupIDKeys, "group", "contact_group")
	out := model.Group{ID: id, Name: g.Name, Description: g.Description}
	if err != nil {
		return out, err
	}
	if s := c.clean(firstString(m, "name"), 0); s != "" {
		out.Name = s
	}
	if s := c.clean(firstString(m, "description"), 0); s != "" {
		out.Description = s
	}
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
	m, id, err := c.create(ctx, "contacts", nc, contactIDKeys, "contact")
	out := model.Contact{ID: id, GroupID: nc.GroupID, Name: nc.Name, Mobile: nc.Mobile}
	if err != nil {
		return out, err
	}
	if m != nil {
		got := c.contactFrom(m)
		if got.GroupID != "" {
			out.GroupID = got.GroupID
		}
		if got.Name != "" {
			out.Name = got.Name
		}
		if got.Mobile != "" {
			out.Mobile = got.Mobile
		}
	}
	if out.ID.IsZero() {
		return out, fmt.Errorf("POST /contacts: %w: the contact was probably added; list the group to find it", ErrMissingID)
	}
	return out, nil
}

// create POSTs body to rel and reads the created record: the object (under
// one of wrappers, or bare) and its id; an answer that is only an id, or
// nothing with a Location header, gives just the id.
func (c *Client) create(ctx context.Context, rel string, body any, idKeys []string, wrappers ...string) (map[string]any, model.ID, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, "", fmt.Errorf("POST /%s: %w", rel, err)
	}
	r := &request{method: http.MethodPost, u: c.resolve(rel), body: b, idemKey: newIdempotencyKey(), policy: retryUnsent}
	res, err := c.do(ctx, r)
	if err != nil {
		return nil, "", err
	}
	v, err := c.decodeBody(r, res)
	if err != nil {
		return nil, "", err
	}
	var m map[string]any
	var id model.ID
	switch x := unwrapData(v).(type) {
	case map[string]any:
		m = descend(x, wrappers...)
		id = idFrom(m, idKeys...)
	default:
		id = idValue(x)
	}
	if id.IsZero() {
		id = idFromLocation(res.header)
	}
	return m, id, nil
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
// *APIError (the key is refused); any other HTTP answer means the key was
// accepted and returns nil; a network failure returns its error.
func (c *Client) Verify(ctx context.Context) error {
	r := &request{method: http.MethodGet, u: c.resolve("contact-groups/0/contacts"), policy: retrySafe}
	_, err := c.do(ctx, r)
	var ae *APIError
	if errors.As(err, &ae) {
		if ae.Status == http.StatusUnauthorized || ae.Status == http.StatusForbidden {
			return err
		}
		if ae.Status >= 500 || ae.Status == http.StatusTooManyRequests {
			return err // no verdict on the key
		}
		return nil
	}
	return err
}
