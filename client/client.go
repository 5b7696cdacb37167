// Package client is the typed HTTP client for the SMS service's API.
package client

import (
	"context"
	"errors"

	"github.com/smsdesk/smsdesk/model"
)

// errStub marks methods not written yet. STUB: replaced by the client implementation.
var errStub = errors.New("client: not implemented yet")

// Client talks to one deployment of the service with one API key.
type Client struct {
	base string
	key  string
}

// Option configures a Client.
type Option func(*Client)

// New returns a client for baseURL (any of the forms operators paste) and apiKey.
func New(baseURL, apiKey string, opts ...Option) (*Client, error) {
	c := &Client{base: baseURL, key: apiKey}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// CreateGroup creates a contact group. POST /contact-groups
func (c *Client) CreateGroup(ctx context.Context, g NewGroup) (model.Group, error) {
	return model.Group{}, errStub
}

// AddContact adds a contact to a group. POST /contacts
func (c *Client) AddContact(ctx context.Context, nc NewContact) (model.Contact, error) {
	return model.Contact{}, errStub
}

// ListContacts returns every contact of a group, following pages to the end.
// progress, when not nil, is called after each page. GET /contact-groups/{id}/contacts
func (c *Client) ListContacts(ctx context.Context, groupID model.ID, progress func(ListProgress)) ([]model.Contact, error) {
	return nil, errStub
}

// DeleteContact deletes a contact. DELETE /contacts/{id}
func (c *Client) DeleteContact(ctx context.Context, id model.ID) error { return errStub }

// SendPair sends each item's message to its recipient. POST /sms/send-pair
func (c *Client) SendPair(ctx context.Context, req SendPairRequest) (SendPairResult, error) {
	return SendPairResult{}, errStub
}

// MessageStatus returns a message's delivery state. GET /sms/{message_id}/status
func (c *Client) MessageStatus(ctx context.Context, messageID string) (DeliveryStatus, error) {
	return DeliveryStatus{}, errStub
}

// Verify checks that the service accepts the key with a harmless authenticated
// request (a read that changes nothing).
func (c *Client) Verify(ctx context.Context) error { return errStub }

// RateStatus reports the request budget for status bars.
func (c *Client) RateStatus() RateStatus { return RateStatus{} }
