package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/smsdesk/smsdesk/model"
)

// ErrPaging is matched by errors.Is when a list cannot be followed to its end:
// a paging loop, the page cap, or a next link to another host.
var ErrPaging = errors.New("paging failed")

// page is one page of a list answer.
type page struct {
	contacts []contactJSON
	next     *url.URL // nil on the last page
	total    int      // -1 when the service does not say
	current  int      // 0 when the service does not say
}

// ListContacts returns every contact of a group, following pages to the end
// (Laravel paginators, meta/links, a paginator nested in data, next links,
// page numbers, Link headers). progress, when not nil, is called after each
// page. On an error it returns the contacts read so far with the error.
//
// Every page is asked for with the page size the first one was: a next link
// that drops per_page (Laravel's default: next_page_url keeps only page)
// would otherwise be answered at the service's default size, and page 2 of
// 15 repeats contacts 16–30 of a first page of 500. Each contact is listed
// once, by id, whatever the pages repeat. A service that refuses per_page
// (400/422) is asked again without it from the first page.
// GET /contact-groups/{id}/contacts
func (c *Client) ListContacts(ctx context.Context, groupID model.ID, progress func(ListProgress)) ([]model.Contact, error) {
	if groupID.IsZero() {
		return nil, errors.New("list contacts: the group id is empty")
	}
	plain := c.resolve("contact-groups/" + url.PathEscape(groupID.String()) + "/contacts")
	for {
		out, err := c.listPages(ctx, groupID, plain, progress)
		if errors.Is(err, errPerPageRefused) {
			c.noPerPage.Store(true) // never asked again by this client
			continue
		}
		return out, err
	}
}

// errPerPageRefused: a page asked for with per_page was refused (400/422);
// the list starts over without it.
var errPerPageRefused = errors.New("per_page refused")

// listPages reads the list once, every page with this client's page size.
func (c *Client) listPages(ctx context.Context, groupID model.ID, plain *url.URL, progress func(ListProgress)) ([]model.Contact, error) {
	size := c.pageSize()
	u := withPageSize(plain, size)
	var out []model.Contact
	seen := map[string]bool{}
	total := -1
	guard := pageGuard{cap: c.pageCap, urls: map[string]bool{}, pages: map[int]bool{}}
	for n := 1; ; n++ {
		path := c.shortPath(u)
		if err := guard.before(n, u.String()); err != nil {
			return out, fmt.Errorf("GET %s: %w; %d contacts read", path, err, len(out))
		}
		r := &request{method: http.MethodGet, u: u, policy: retrySafe}
		res, err := c.do(ctx, r)
		if size != "" && refusedParameter(err) {
			return nil, errPerPageRefused
		}
		if err != nil {
			return out, err
		}
		pg, err := c.readPage(r, res)
		if err != nil {
			return out, err
		}
		if err := guard.after(n, pg); err != nil {
			return out, fmt.Errorf("GET %s: %w; %d contacts read", path, err, len(out))
		}
		first := len(out)
		for _, j := range pg.contacts {
			ct := c.contact(j)
			ct.GroupID = cmp.Or(ct.GroupID, groupID)
			if id := ct.ID.String(); id != "" {
				if seen[id] {
					continue // a page that overlaps another: the contact is listed once
				}
				seen[id] = true
			}
			out = append(out, ct)
		}
		if pg.total >= 0 {
			total = pg.total
		}
		if progress != nil {
			progress(ListProgress{Loaded: len(out), Total: total, Page: n, Contacts: slices.Clone(out[first:])})
		}
		if pg.next == nil {
			return out, nil
		}
		if u, err = c.checkNext(pg.next); err != nil {
			return out, fmt.Errorf("GET %s: %w", path, err)
		}
		u = withPageSize(u, size)
	}
}

// pageSize is the per_page every page of a list is asked with: askPageSize,
// so that a service that honours it lists 3,000 contacts in a handful of
// requests instead of 200 pages of 15 at its rate budget; "" once the
// service refused the parameter.
func (c *Client) pageSize() string {
	if c.noPerPage.Load() {
		return ""
	}
	return strconv.Itoa(askPageSize)
}

// withPageSize is u asking for pages of size ("" leaves u as it is).
func withPageSize(u *url.URL, size string) *url.URL {
	if size == "" {
		return u
	}
	return withQuery(u, "per_page", size)
}

// askPageSize is the page size lists ask for (per_page).
const askPageSize = 500

// refusedParameter reports a 400 or 422: the service refused the request as
// asked (an unknown or too large per_page), not the group or the key.
func refusedParameter(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && (ae.Status == http.StatusBadRequest || ae.Status == http.StatusUnprocessableEntity)
}

// pageGuard stops a list that would not end: the page cap, a next-page link
// or a page number seen before, a page that repeats the previous one.
type pageGuard struct {
	cap   int
	urls  map[string]bool
	pages map[int]bool
	last  string // the previous page's ids
}

// before checks page n's URL before it is asked for.
func (g *pageGuard) before(n int, u string) error {
	if n > g.cap {
		return fmt.Errorf("%w: stopped after %d pages (the page cap); the service's paging may be broken", ErrPaging, g.cap)
	}
	if g.urls[u] {
		return fmt.Errorf("%w: the service sent the same next-page link twice (a paging loop)", ErrPaging)
	}
	g.urls[u] = true
	return nil
}

// after checks page n's answer before its contacts are taken.
func (g *pageGuard) after(n int, pg page) error {
	if pg.current > 0 && g.pages[pg.current] {
		return fmt.Errorf("%w: the service answered page %d twice (a paging loop)", ErrPaging, pg.current)
	}
	g.pages[pg.current] = true
	ids := make([]string, len(pg.contacts))
	for i, j := range pg.contacts {
		ids[i] = j.ID.String()
	}
	s := strings.Join(ids, "\x00")
	if len(ids) > 0 && s == g.last {
		return fmt.Errorf("%w: page %d repeats the previous page (a paging loop)", ErrPaging, n)
	}
	g.last = s
	return nil
}

// checkNext allows a next-page link only to the service's own host. A link
// that names the same host over plain http (a proxy that hides its TLS) is
// moved back to the base URL's https.
func (c *Client) checkNext(next *url.URL) (*url.URL, error) {
	if sameOrigin(next, c.base) {
		return next, nil
	}
	if strings.EqualFold(next.Hostname(), c.base.Hostname()) && next.Scheme == "http" && c.base.Scheme == "https" {
		up := *next
		up.Scheme, up.Host = c.base.Scheme, c.base.Host
		return &up, nil
	}
	return nil, fmt.Errorf("%w: the next-page link points to %s, not the service's host %s; refusing to send the key there",
		ErrPaging, c.clean(next.Host, 100), c.base.Host)
}

// pageJSON is the documented list answer: a Laravel resource collection.
type pageJSON struct {
	Success bool          `json:"success"`
	Data    []contactJSON `json:"data"`
	Meta    struct {
		CurrentPage int `json:"current_page"`
		PerPage     int `json:"per_page"`
		Total       int `json:"total"`
		LastPage    int `json:"last_page"`
	} `json:"meta"`
	Links struct {
		First string  `json:"first"`
		Last  string  `json:"last"`
		Prev  *string `json:"prev"`
		Next  *string `json:"next"`
	} `json:"links"`
	Message *string `json:"message"`
}

// paging is what a list answer says about the pages around it.
type paging struct {
	current, last, total, perPage, nextPage int
	nextURL, nextCursor                     string
}

// readPage reads one page: the documented answer, else any known list shape.
func (c *Client) readPage(r *request, res *response) (page, error) {
	var doc pageJSON
	if decodeStrict(res.body, &doc) && doc.Success {
		p := paging{current: doc.Meta.CurrentPage, last: doc.Meta.LastPage, total: doc.Meta.Total, perPage: doc.Meta.PerPage}
		if doc.Links.Next != nil {
			p.nextURL = *doc.Links.Next
		}
		return c.pageOf(r, res, doc.Data, p)
	}
	v, err := c.decodeBody(r, res)
	if err != nil {
		return page{total: -1}, err
	}
	list, p, ok := listAndPaging(v)
	if !ok {
		return page{total: -1}, errorf(r.method, c.shortPath(r.u), "the answer holds no list of contacts; it starts %q", c.clean(string(res.body), 80))
	}
	contacts := make([]contactJSON, len(list))
	for i, it := range list {
		m, ok := it.(map[string]any)
		if !ok {
			return page{total: -1}, errorf(r.method, c.shortPath(r.u), "item %d of the list is not a contact object", i+1)
		}
		contacts[i] = c.contactFrom(m)
	}
	return c.pageOf(r, res, contacts, p)
}

// listAndPaging finds the list in a tolerant answer — a bare array, or the
// first list under a list name at the top or in data — and the paging fields
// around it: at the top, in data, and under meta, pagination, page_info or
// paging (and a pagination inside those). total is -1 when none is given.
func listAndPaging(v any) ([]any, paging, bool) {
	p := paging{total: -1}
	if l, ok := v.([]any); ok || v == nil {
		return l, p, true
	}
	top, _ := v.(map[string]any)
	levels := []map[string]any{top}
	list, ok := listAt(top, namesList...)
	if data, isObj := top["data"].(map[string]any); !ok && isObj {
		levels = append(levels, data)
		list, ok = listAt(data, namesList...)
	}
	if !ok {
		return nil, p, false
	}
	for _, l := range levels {
		if sub, ok := objectAt(l, namesPaging...); ok {
			levels = append(levels, sub)
			if inner, ok := objectAt(sub, "pagination"); ok {
				levels = append(levels, inner)
			}
		}
	}
	for _, l := range levels {
		p.read(l)
	}
	return list, p, true
}

// read fills what p does not know yet from one level of an answer.
func (p *paging) read(l map[string]any) {
	pick := func(dst *int, min int, names []string) {
		if n, ok := number(l, min, names...); ok && *dst <= 0 {
			*dst = n
		}
	}
	pick(&p.current, 1, namesCurrent)
	pick(&p.last, 1, namesLast)
	pick(&p.perPage, 1, namesPerPage)
	pick(&p.nextPage, 1, namesNextPage)
	if p.total < 0 {
		pick(&p.total, 0, namesTotal)
	}
	if p.nextURL == "" {
		p.nextURL = link(l, namesNextURL...)
		if links, ok := objectAt(l, "links"); ok && p.nextURL == "" {
			p.nextURL = link(links, "next")
			if nl, ok := objectAt(links, "next"); ok && p.nextURL == "" {
				p.nextURL = link(nl, "href", "url")
			}
		}
	}
	p.nextCursor = cmp.Or(p.nextCursor, link(l, namesNextCursor...))
}

// pageOf makes the page: the next page is the answer's next link, else its
// cursor, else its next page number, else the page after the current one when
// the last page or the total says there is one, else the Link header's.
func (c *Client) pageOf(r *request, res *response, contacts []contactJSON, p paging) (page, error) {
	pg := page{contacts: contacts, total: p.total, current: p.current}
	if n, err := strconv.Atoi(p.nextURL); err == nil && n > 0 {
		p.nextURL, p.nextPage = "", n // "next": "2" is a page number
	}
	p.nextURL = cmp.Or(p.nextURL, linkNext(res.header.Values("Link")))
	switch {
	case p.nextURL != "":
		ref, err := url.Parse(p.nextURL)
		if err != nil {
			return pg, errorf(r.method, c.shortPath(r.u), "the next-page link %q is not a URL", c.clean(p.nextURL, 100))
		}
		pg.next = res.url.ResolveReference(ref)
	case p.nextCursor != "":
		pg.next = withQuery(res.url, "cursor", p.nextCursor)
	case p.nextPage > 0:
		pg.next = withQuery(res.url, "page", strconv.Itoa(p.nextPage))
	case p.current > 0 && (p.last > p.current || p.last == 0 && p.perPage > 0 && p.total > p.current*p.perPage && len(contacts) > 0):
		pg.next = withQuery(res.url, "page", strconv.Itoa(p.current+1))
	}
	return pg, nil
}

// withQuery returns u with query parameter k set to v.
func withQuery(u *url.URL, k, v string) *url.URL {
	cp := *u
	q := cp.Query()
	q.Set(k, v)
	cp.RawQuery = q.Encode()
	return &cp
}

// linkNext finds rel="next" in Link headers (RFC 8288).
func linkNext(values []string) string {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			target, params, ok := strings.Cut(part, ";")
			if !ok {
				continue
			}
			target = strings.TrimSpace(target)
			if !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
				continue
			}
			for _, p := range strings.Split(params, ";") {
				k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(strings.TrimSpace(k), "rel") {
					for _, rel := range strings.Fields(strings.Trim(strings.TrimSpace(val), `"`)) {
						if strings.EqualFold(rel, "next") {
							return target[1 : len(target)-1]
						}
					}
				}
			}
		}
	}
	return ""
}
