package client

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
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
	opts.Key = testKey
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
	g, err := c.CreateGroup(context.Background(), NewGroup{Name: "big"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var failed atomic.Int32
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				if _, err := c.AddContact(context.Background(), NewContact{GroupID: g.ID, Mobile: fmt.Sprintf("0912%07d", i)}); err != nil {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if failed.Load() > 0 {
		t.Fatalf("%d contacts not added", failed.Load())
	}
	return sb, c, g.ID
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
	if asked.Load() != 1 || !strings.HasPrefix(got[0].Mobile, "0912") {
		t.Errorf("per_page asked %d times over two lists; want once", asked.Load())
	}
	if reqs := sb.RequestsTo("GET", listPath(gid)); reqs != 2*n/100 {
		t.Errorf("per_page refused: %d list requests reached the service, want %d (pages of 100, twice)", reqs, 2*n/100)
	}
}
