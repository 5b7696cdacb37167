package client

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
)

// bigGroup is a sandbox group of n contacts behind wrap (nil: none), and a
// client for it.
func bigGroup(t *testing.T, n int, opts sandbox.Options, wrap func(http.Handler) http.Handler) (*sandbox.Server, *Client, model.ID) {
	t.Helper()
	// The sandbox makes the group itself (its "Paging drill"): adding 3,000
	// contacts a request at a time took 45 s of the client package's 57 under
	// -race, for what this file tests, which is the listing.
	opts.Key, opts.BigGroup = testKey, n
	sb, err := sandbox.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h := sb.Handler()
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := New(srv.URL+"/api/v1", testKey, WithRatePerMinute(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range sb.Groups() {
		if g.Name == "Paging drill" {
			return sb, c, g.ID
		}
	}
	t.Fatalf("the sandbox made no group of %d contacts", n)
	return nil, nil, ""
}

// TestListContactsAsksForLargePages: 3,000 contacts from a service that
// honours per_page (the sandbox, up to 1,000 a page) take a handful of
// requests, not 200 pages of 15; one that ignores it pages as before; one
// that refuses it (422) gets the list without it, and is not asked again.
func TestListContactsAsksForLargePages(t *testing.T) {
	const n = 3000
	listPath := func(gid model.ID) string { return "/contact-groups/" + gid.String() + "/contacts" }

	sb, c, gid := bigGroup(t, n, sandbox.Options{PageSize: 15}, nil)
	got, err := c.ListContacts(context.Background(), gid, nil)
	if reqs := sb.RequestsTo("GET", listPath(gid)); err != nil || len(got) != n || reqs > 10 {
		t.Errorf("per_page honoured: %d contacts in %d requests (%v); want %d in ≤ 10", len(got), reqs, err, n)
	}

	sb, c, gid = bigGroup(t, n, sandbox.Options{PageSize: 100, MaxPerPage: 100}, nil)
	got, err = c.ListContacts(context.Background(), gid, nil)
	if reqs := sb.RequestsTo("GET", listPath(gid)); err != nil || len(got) != n || reqs != n/100 {
		t.Errorf("per_page ignored: %d contacts in %d requests (%v); want %d in %d", len(got), reqs, err, n, n/100)
	}

	var asked atomic.Int32
	refusing := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Has("per_page") {
				asked.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnprocessableEntity)
				_, _ = w.Write([]byte(`{"success":false,"error_code":"validation_error","message":"The per page field is not allowed."}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	sb, c, gid = bigGroup(t, n, sandbox.Options{PageSize: 100}, refusing)
	for round := range 2 {
		got, err = c.ListContacts(context.Background(), gid, nil)
		if err != nil || len(got) != n {
			t.Fatalf("per_page refused, round %d: %d contacts, %v", round, len(got), err)
		}
	}
	if asked.Load() != 1 || !strings.HasPrefix(got[0].Mobile, "09") {
		t.Errorf("per_page asked %d times over two lists (first mobile %q); want once", asked.Load(), got[0].Mobile)
	}
	if reqs := sb.RequestsTo("GET", listPath(gid)); reqs != 2*n/100 {
		t.Errorf("per_page refused: %d list requests reached the service, want %d (pages of 100, twice)", reqs, 2*n/100)
	}
}

// TestListContactsKeepsItsPageSize: next links that drop per_page (Laravel's
// paginator, unless the app appends the query) are followed with it put
// back: 3,000 contacts come in ≤ 10 requests, each contact once. Before, page
// 2 came at the default 15 and repeated contacts 16–30 of the first page of
// 500: 3,485 rows in 200 requests.
func TestListContactsKeepsItsPageSize(t *testing.T) {
	const n = 3000
	var asked []string
	var mu sync.Mutex
	record := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				mu.Lock()
				asked = append(asked, r.URL.RawQuery)
				mu.Unlock()
			}
			next.ServeHTTP(w, r)
		})
	}
	sb, c, gid := bigGroup(t, n, sandbox.Options{PageSize: 15, LinksWithoutPerPage: true}, record)
	got, err := c.ListContacts(context.Background(), gid, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkOnce(t, got, n)
	if reqs := sb.RequestsTo("GET", "/contact-groups/"+gid.String()+"/contacts"); reqs > 10 {
		t.Errorf("%d list requests; want ≤ 10", reqs)
	}
	for _, q := range asked {
		if !strings.Contains(q, "per_page=500") {
			t.Errorf("a page was asked for without the page size: ?%s", q)
			break
		}
	}
}

// checkOnce fails unless got holds n contacts, each id once.
func checkOnce(t *testing.T, got []model.Contact, n int) {
	t.Helper()
	ids := map[string]int{}
	for _, c := range got {
		ids[c.ID.String()]++
	}
	copies := 0
	for _, k := range ids {
		copies += k - 1
	}
	if len(got) != n || len(ids) != n || copies != 0 {
		t.Errorf("%d rows, %d distinct ids, %d copies; want %d, each once", len(got), len(ids), copies, n)
	}
}

// TestListContactsListsEachContactOnce: pages that overlap (a contact added
// between two page requests shifts the offsets by one) list each contact
// once, by id.
func TestListContactsListsEachContactOnce(t *testing.T) {
	const n, size = 95, 10
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		page = max(page, 1)
		from := max((page-1)*size-1, 0) // each page after the first starts one early
		to := min(page*size, n)
		var items []string
		for i := from; i < to; i++ {
			items = append(items, fmt.Sprintf(`{"id":%d,"group_id":7,"name":null,"mobile":"0912%07d"}`, i+1, i))
		}
		next := "null"
		if to < n {
			next = fmt.Sprintf(`"http://%s%s?page=%d"`, r.Host, r.URL.Path, page+1)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"success":true,"data":[%s],"meta":{"current_page":%d,"per_page":%d,"total":%d,"last_page":%d},"links":{"next":%s},"message":null}`,
			strings.Join(items, ","), page, size, n, (n+size-1)/size, next)
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.URL+"/api/v1", testKey, WithRatePerMinute(0))
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.ListContacts(context.Background(), model.ID("7"), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkOnce(t, got, n)
}

// TestListContactsPerPageRefusedLater: a service that takes per_page on the
// first page and refuses it (422) on a later one gets the list asked again
// from the first page without it, whole and each contact once (before, the
// 422 ended the list with an error).
func TestListContactsPerPageRefusedLater(t *testing.T) {
	const n = 300
	var refused atomic.Int32
	refusing := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if q.Has("per_page") && q.Get("page") == "2" {
				refused.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnprocessableEntity)
				_, _ = w.Write([]byte(`{"success":false,"error_code":"validation_failed","message":"The per page may not be greater than 100."}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	_, c, gid := bigGroup(t, n, sandbox.Options{PageSize: 20, MaxPerPage: 100}, refusing)
	var loaded int
	got, err := c.ListContacts(context.Background(), gid, func(p ListProgress) { loaded = p.Loaded })
	if err != nil {
		t.Fatal(err)
	}
	checkOnce(t, got, n)
	if refused.Load() != 1 || loaded != n {
		t.Errorf("per_page refused %d times, last progress %d loaded; want once, %d", refused.Load(), loaded, n)
	}
}
