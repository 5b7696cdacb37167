package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/smsdesk/smsdesk/model"
)

// ErrPaging is matched by errors.Is when a list cannot be followed to its end:
// a paging loop, the page cap, or a next link to another host.
var ErrPaging = errors.New("paging failed")

// page is one page of a list answer.
type page struct {
	items   []any
	next    *url.URL // nil on the last page
	total   int      // -1 when the service does not say
	current int      // 0 when the service does not say
}

// ListContacts returns every contact of a group, following pages to the end
// (Laravel paginators, meta/links, a paginator nested in data, next links,
// page numbers, Link headers). progress, when not nil, is called after each
// page. On an error it returns the contacts read so far with the error.
// GET /contact-groups/{id}/contacts
func (c *Client) ListContacts(ctx context.Context, groupID model.ID, progress func(ListProgress)) ([]model.Contact, error) {
	if groupID.IsZero() {
		return nil, errors.New("list contacts: the group id is empty")
	}
	u := c.resolve("contact-groups/" + url.PathEscape(groupID.String()) + "/contacts")
	var (
		out       []model.Contact
		total     = -1
		seenURL   = map[string]bool{}
		seenPage  = map[int]bool{}
		lastShape string
	)
	for n := 1; ; n++ {
		path := c.shortPath(u)
		if n > c.pageCap {
			return out, fmt.Errorf("GET %s: %w: stopped after %d pages (the page cap) with %d contacts; the service's paging may be broken", path, ErrPaging, c.pageCap, len(out))
		}
		if seenURL[u.String()] {
			return out, fmt.Errorf("GET %s: %w: the service sent the same next-page link twice (a paging loop); %d contacts read", path, ErrPaging, len(out))
		}
		seenURL[u.String()] = true
		r := &request{method: http.MethodGet, u: u, policy: retrySafe}
		res, err := c.do(ctx, r)
		if err != nil {
			return out, err
		}
		pg, err := c.parsePage(r, res)
		if err != nil {
			return out, err
		}
		if pg.current > 0 {
			if seenPage[pg.current] {
				return out, fmt.Errorf("GET %s: %w: the service answered page %d twice (a paging loop); %d contacts read", path, ErrPaging, pg.current, len(out))
			}
			seenPage[pg.current] = true
		}
		shape := make([]string, 0, len(pg.items))
		for i, it := range pg.items {
			m, ok := it.(map[string]any)
			if !ok {
				return out, fmt.Errorf("GET %s: item %d of page %d is not a contact object", path, i+1, n)
			}
			ct := c.contactFrom(m)
			if ct.GroupID.IsZero() {
				ct.GroupID = groupID
			}
			out = append(out, ct)
			shape = append(shape, ct.ID.String())
		}
		if s := strings.Join(shape, "\x00"); len(pg.items) > 0 && s == lastShape {
			return out[:len(out)-len(pg.items)], fmt.Errorf("GET %s: %w: page %d repeats the previous page (a paging loop)", path, ErrPaging, n)
		} else {
			lastShape = s
		}
		if pg.total >= 0 {
			total = pg.total
		}
		if progress != nil {
			progress(ListProgress{Loaded: len(out), Total: total, Page: n})
		}
		if pg.next == nil {
			return out, nil
		}
		next, err := c.checkNext(pg.next)
		if err != nil {
			return out, fmt.Errorf("GET %s: %w", path, err)
		}
		u = next
	}
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

// parsePage reads one page in any of the known list shapes.
func (c *Client) parsePage(r *request, res *response) (page, error) {
	pg := page{total: -1}
	v, err := c.decodeBody(r, res)
	if err != nil {
		return pg, err
	}
	var levels []map[string]any
	switch x := v.(type) {
	case nil:
	case []any:
		pg.items = x
	case map[string]any:
		levels = append(levels, x)
		items, ok := listIn(x)
		if !ok {
			if inner, isMap := x["data"].(map[string]any); isMap {
				levels = append(levels, inner)
				items, ok = listIn(inner)
			}
		}
		if !ok {
			return pg, errorf(r.method, c.shortPath(r.u), "the answer holds no list of contacts; it starts %q", c.clean(string(res.body), 80))
		}
		pg.items = items
		for _, l := range levels {
			for _, k := range []string{"meta", "pagination", "page_info", "paging"} {
				if sub, ok := l[k].(map[string]any); ok {
					levels = append(levels, sub)
					if p, ok := sub["pagination"].(map[string]any); ok {
						levels = append(levels, p)
					}
				}
			}
		}
	default:
		return pg, errorf(r.method, c.shortPath(r.u), "the answer is not a list; it starts %q", c.clean(string(res.body), 80))
	}
	var (
		nextURL                 string
		nextPage, last, perPage int
		nextCursor              string
	)
	for _, l := range levels {
		if pg.current == 0 {
			pg.current = intField(l, "current_page", "currentPage", "page")
		}
		if last == 0 {
			last = intField(l, "last_page", "lastPage", "total_pages", "totalPages", "page_count", "pageCount")
		}
		if pg.total < 0 {
			if t := intField(l, "total", "total_count", "totalCount", "total_items", "totalItems"); t > 0 || hasNumber(l, "total") {
				pg.total = t
			}
		}
		if perPage == 0 {
			perPage = intField(l, "per_page", "perPage", "page_size", "pageSize")
		}
		if nextURL == "" {
			nextURL = firstStringOnly(l, "next_page_url", "nextPageUrl", "next_url", "nextUrl", "next", "next_link")
			if links, ok := l["links"].(map[string]any); ok && nextURL == "" {
				nextURL = firstStringOnly(links, "next")
				if nl, ok := links["next"].(map[string]any); ok && nextURL == "" {
					nextURL = firstStringOnly(nl, "href", "url")
				}
			}
		}
		if nextPage == 0 {
			nextPage = intField(l, "next", "next_page", "nextPage")
		}
		if nextCursor == "" {
			nextCursor = firstStringOnly(l, "next_cursor", "nextCursor")
		}
	}
	if n, err := strconv.Atoi(nextURL); err == nil && n > 0 {
		nextURL, nextPage = "", n // "next": "2" is a page number
	}
	if nextURL == "" {
		nextURL = linkNext(res.header.Values("Link"))
	}
	switch {
	case nextURL != "":
		ref, err := url.Parse(nextURL)
		if err != nil {
			return pg, errorf(r.method, c.shortPath(r.u), "the next-page link %q is not a URL", c.clean(nextURL, 100))
		}
		pg.next = res.url.ResolveReference(ref)
	case nextCursor != "":
		pg.next = withQuery(res.url, "cursor", nextCursor)
	case nextPage > 0:
		pg.next = withQuery(res.url, "page", strconv.Itoa(nextPage))
	case pg.current > 0 && last > 0 && pg.current < last:
		pg.next = withQuery(res.url, "page", strconv.Itoa(pg.current+1))
	case pg.current > 0 && last == 0 && perPage > 0 && pg.total > pg.current*perPage && len(pg.items) > 0:
		pg.next = withQuery(res.url, "page", strconv.Itoa(pg.current+1))
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

// intOf reads an integer given as a JSON number or a numeric string.
func intOf(v any) (int, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = x
	default:
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return n, err == nil
}

// intField returns the first of keys holding an integer (a JSON number or a
// numeric string), or 0.
func intField(m map[string]any, keys ...string) int {
	for _, k := range keys {
		if n, ok := intOf(m[k]); ok && n > 0 {
			return n
		}
	}
	return 0
}

func hasNumber(m map[string]any, k string) bool {
	_, ok := m[k].(json.Number)
	return ok
}

// firstStringOnly is firstString without numbers (for links).
func firstStringOnly(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}
