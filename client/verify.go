package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/smsdesk/smsdesk/model"
)

// ErrNotAPI is returned by Verify when the base URL answers, but not as the
// service's API does (a web page, a proxy's error, a mistyped path).
var ErrNotAPI = errors.New("the base URL did not answer as the API does")

// ErrNotProved is returned by Verify when the key was not refused but no
// probe answered 2xx: every one answered 404 in the API's envelope, as a
// deployment does for paths it has no route for (a base URL one segment
// off). Nothing at this base URL showed that it is the API.
var ErrNotProved = errors.New("nothing at this base URL answered as the API")

func notAPI(path string, status int, what string) error {
	return fmt.Errorf("%w: no smsdesk API at this base URL — is it /api/v1? (GET %s answered %d with %s)", ErrNotAPI, path, status, what)
}

// maxVerifyGroups bounds the known groups Verify asks for.
const maxVerifyGroups = 3

// Verify checks that the service accepts the key with harmless authenticated
// reads, and that the base URL is the API's: the key counts as accepted only
// when one of them answers 2xx in the API's shape. It asks, in order, until
// one does:
//
//	GET /contact-groups/0/contacts            (a service that lists group 0)
//	GET /account/credit                       (where the service has it)
//	GET /contact-groups/{id}/contacts, for up to three of known
//	                                          (groups the profile tracks)
//
// 401 or 403 returns the *APIError (the key is refused); a network failure,
// a 5xx or a 429 returns its error (no verdict). A web page, something that
// is not JSON, or a bare JSON 404 that a server gives for any path is
// ErrNotAPI. Every probe answered 404 in the API's envelope: ErrNotProved
// (the key was not refused, but nothing here answered as the API).
func (c *Client) Verify(ctx context.Context, known ...model.ID) error {
	_, err := c.Prove(ctx, known...)
	return err
}

// Proof is what Prove learned on the way: the account's credit when it was
// asked and answered (nil otherwise), and whether the service has no credit
// endpoint (it answered 404 or 405), so that a caller need not ask again.
type Proof struct {
	Credit   *model.Credit
	NoCredit bool
}

// Prove is Verify, and also returns what it learned.
func (c *Client) Prove(ctx context.Context, known ...model.ID) (Proof, error) {
	var proof Proof
	r := &request{method: http.MethodGet, u: c.resolve("contact-groups/0/contacts"), policy: retrySafe}
	res, err := c.do(ctx, r)
	path := c.shortPath(r.u)
	if done, err := c.firstAnswer(ctx, path, res, err); done {
		return proof, err
	}
	// Not refused; now one answer must show the API is here.
	asked := []string{path, "/account/credit"}
	cr, err := c.Credit(ctx)
	switch {
	case err == nil:
		proof.Credit = &cr
		return proof, nil
	case refusedKey(err):
		return proof, err
	}
	proof.NoCredit = errors.Is(err, ErrNoCreditEndpoint)
	more, err := c.proveByGroups(ctx, known)
	if more == nil {
		return proof, err // proved (err nil), or the key refused
	}
	asked = append(asked, more...)
	return proof, fmt.Errorf("%w: the key was not refused, but no request answered 2xx (GET %s each answered 404 or refused the request)",
		ErrNotProved, strings.Join(asked, ", "))
}

// firstAnswer judges the answer to the key check's first request (GET
// path): done when it decides (a 2xx that reads as the API: err nil; not
// the API, the key refused, or no verdict: err says which); not done when
// the key was not refused but nothing is proved yet.
func (c *Client) firstAnswer(ctx context.Context, path string, res *response, err error) (done bool, _ error) {
	var ae *APIError
	switch {
	case err == nil:
		if looksHTML(res.header, res.body) {
			return true, notAPI(path, res.status, "a web page")
		}
		if !apiShaped(res.body) {
			return true, notAPI(path, res.status, "JSON that is not the API's")
		}
		return true, nil
	case !errors.As(err, &ae):
		return true, err
	case ae.Status == http.StatusUnauthorized || ae.Status == http.StatusForbidden:
		return true, err
	case ae.Status >= 500 || ae.Status == http.StatusTooManyRequests:
		return true, err // no verdict on the key
	}
	if err := c.verifyRefusal(ctx, path, ae); err != nil {
		return true, err
	}
	return false, nil
}

// proveByGroups reads the first page of up to maxVerifyGroups known groups
// until one answers 2xx as a list: nil asked when one did (err nil) or the
// key was refused (err); else the paths asked, none of which proved it.
func (c *Client) proveByGroups(ctx context.Context, known []model.ID) (asked []string, err error) {
	asked = []string{}
	for i, id := range known {
		if i == maxVerifyGroups || id.IsZero() {
			break
		}
		// Its first page as the service pages it: a per_page it may refuse
		// would prove nothing.
		r := &request{method: http.MethodGet, u: c.resolve("contact-groups/" + url.PathEscape(id.String()) + "/contacts"), policy: retrySafe}
		res, err := c.do(ctx, r)
		asked = append(asked, c.shortPath(r.u))
		switch {
		case err == nil && !looksHTML(res.header, res.body) && c.readsAsList(r, res):
			return nil, nil
		case refusedKey(err):
			return nil, err
		}
	}
	return asked, nil
}

// readsAsList reports whether a 2xx answer is a page of contacts as the
// list reader reads any of the shapes deployments use.
func (c *Client) readsAsList(r *request, res *response) bool {
	_, err := c.readPage(r, res)
	return err == nil
}

// refusedKey reports a 401 or 403: the service refused the key.
func refusedKey(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && (ae.Status == http.StatusUnauthorized || ae.Status == http.StatusForbidden)
}

// verifyRefusal judges a 4xx (not 401 or 403) answer to the key check: the
// API's "no group 0" (or a 400/422 judging the id) is not a refusal of the
// key (nil; it proves nothing either); a web page, something that is not
// JSON, or the 404 a server gives for any path means no API here.
func (c *Client) verifyRefusal(ctx context.Context, path string, ae *APIError) error {
	snip := strings.TrimSpace(ae.Snippet)
	switch {
	case strings.HasPrefix(strings.ToLower(snip), "<"):
		return notAPI(path, ae.Status, "a web page")
	case !strings.HasPrefix(snip, "{"):
		return notAPI(path, ae.Status, "something that is not JSON")
	case ae.Status != http.StatusNotFound || ae.Code != "" || strings.Contains(snip, `"success"`):
		return nil // the API's envelope, or a 400/422 judging the id
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

// SiblingBaseURLs returns the other documented forms of a base URL to try
// when it has no API behind it: …/v1 for …/api/v1 and the other way round
// (below the same path), then the host's own /api/v1 and /v1; the base URL
// itself and repeats are left out.
func SiblingBaseURLs(base string) []string {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(base), "/"))
	if err != nil || u.Host == "" {
		return nil
	}
	u.User = nil
	p := strings.TrimRight(u.Path, "/")
	var paths []string
	switch {
	case strings.HasSuffix(p, "/api/v1"):
		paths = []string{strings.TrimSuffix(p, "/api/v1") + "/v1"}
	case strings.HasSuffix(p, "/v1"):
		paths = []string{strings.TrimSuffix(p, "/v1") + "/api/v1"}
	case strings.HasSuffix(p, "/api"):
		paths = []string{p + "/v1", strings.TrimSuffix(p, "/api") + "/v1"}
	default:
		paths = []string{p + "/api/v1", p + "/v1"}
	}
	paths = append(paths, "/api/v1", "/v1")
	var out []string
	seen := map[string]bool{canonicalPath(p): true}
	for _, sp := range paths {
		if seen[canonicalPath(sp)] {
			continue
		}
		seen[canonicalPath(sp)] = true
		v := *u
		v.Path = sp
		out = append(out, v.String())
	}
	return out
}

// canonicalPath is a base URL's path as the client normalises it (…/api →
// …/api/v1, anything else not ending in /v1 gets /api/v1), for telling
// forms apart.
func canonicalPath(p string) string {
	p = strings.ToLower(strings.TrimRight(p, "/"))
	switch {
	case strings.HasSuffix(p, "/v1"):
		return p
	case strings.HasSuffix(p, "/api"):
		return p + "/v1"
	}
	return p + "/api/v1"
}
