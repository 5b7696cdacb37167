package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// pageItems are the contacts of page p (1-based) of a 3-page list of 7.
func pageItems(p int) string {
	var items []string
	for i := (p-1)*3 + 1; i <= min(p*3, 7); i++ {
		items = append(items, fmt.Sprintf(`{"id":%d,"name":"n%d","mobile":"0912000000%d"}`, i, i, i))
	}
	return "[" + strings.Join(items, ",") + "]"
}

func TestClient_ListContacts_Shapes(t *testing.T) {
	// Each shape answers page p of 3; base is the page URL without query.
	shapes := map[string]func(base string, p int) (header, body string){
		"laravel paginator": func(base string, p int) (string, string) {
			next := "null"
			if p < 3 {
				next = fmt.Sprintf(`"%s?page=%d"`, base, p+1)
			}
			return "", fmt.Sprintf(`{"current_page":%d,"data":%s,"last_page":3,"next_page_url":%s,"per_page":3,"total":7,"links":[{"url":null,"label":"prev"}]}`, p, pageItems(p), next)
		},
		"meta and links": func(base string, p int) (string, string) {
			next := "null"
			if p < 3 {
				next = fmt.Sprintf(`"%s?page=%d"`, base, p+1)
			}
			return "", fmt.Sprintf(`{"data":%s,"links":{"next":%s},"meta":{"current_page":%d,"last_page":3,"total":7}}`, pageItems(p), next, p)
		},
		"paginator nested in data": func(base string, p int) (string, string) {
			next := "null"
			if p < 3 {
				next = fmt.Sprintf(`"%s?page=%d"`, base, p+1)
			}
			return "", fmt.Sprintf(`{"success":true,"data":{"current_page":%d,"data":%s,"last_page":3,"next_page_url":%s,"total":7},"message":null}`, p, pageItems(p), next)
		},
		"items with relative next": func(base string, p int) (string, string) {
			next := "null"
			if p < 3 {
				next = fmt.Sprintf(`"?page=%d"`, p+1)
			}
			return "", fmt.Sprintf(`{"items":%s,"next":%s}`, pageItems(p), next)
		},
		"results with absolute-path next": func(base string, p int) (string, string) {
			next := "null"
			if p < 3 {
				u, _ := url.Parse(base)
				next = fmt.Sprintf(`"%s?page=%d"`, u.Path, p+1)
			}
			return "", fmt.Sprintf(`{"results":%s,"next":%s,"count":7}`, pageItems(p), next)
		},
		"contacts with page numbers only": func(base string, p int) (string, string) {
			return "", fmt.Sprintf(`{"contacts":%s,"page":%d,"total_pages":3}`, pageItems(p), p)
		},
		"pagination object": func(base string, p int) (string, string) {
			return "", fmt.Sprintf(`{"data":%s,"meta":{"pagination":{"current_page":%d,"total_pages":3,"total":7}}}`, pageItems(p), p)
		},
		"link header": func(base string, p int) (string, string) {
			h := ""
			if p < 3 {
				h = fmt.Sprintf(`<%s?page=%d>; rel="next", <%s?page=3>; rel="last"`, base, p+1, base)
			}
			return h, pageItems(p)
		},
	}
	for name, shape := range shapes {
		t.Run(name, func(t *testing.T) {
			c, mux, srv, _ := setup(t)
			var n counter
			mux.HandleFunc("GET /contact-groups/{id}/contacts", func(w http.ResponseWriter, r *http.Request) {
				n.inc()
				if r.PathValue("id") != "12" {
					t.Errorf("group id = %q", r.PathValue("id"))
				}
				p, _ := strconv.Atoi(r.URL.Query().Get("page"))
				p = max(p, 1)
				h, body := shape(srv.URL+"/api/v1/contact-groups/12/contacts", p)
				if h != "" {
					w.Header().Set("Link", h)
				}
				writeJSON(w, 200, body)
			})
			var prog []ListProgress
			got, err := c.ListContacts(context.Background(), "12", func(p ListProgress) { prog = append(prog, p) })
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 7 || n.get() != 3 {
				t.Fatalf("got %d contacts in %d requests, want 7 in 3", len(got), n.get())
			}
			for i, ct := range got {
				want := model.Contact{ID: model.ID(strconv.Itoa(i + 1)), GroupID: "12", Name: fmt.Sprintf("n%d", i+1), Mobile: fmt.Sprintf("0912000000%d", i+1)}
				if ct != want {
					t.Errorf("contact %d = %+v, want %+v", i, ct, want)
				}
			}
			if len(prog) != 3 || prog[2].Loaded != 7 || prog[2].Page != 3 {
				t.Errorf("progress = %+v", prog)
			}
			// Each report carries its own page: together, the whole list in order.
			var streamed []model.Contact
			for _, p := range prog {
				streamed = append(streamed, p.Contacts...)
			}
			if fmt.Sprint(streamed) != fmt.Sprint(got) {
				t.Errorf("pages streamed %v, want %v", streamed, got)
			}
		})
	}
}

func TestClient_ListContacts_TotalReported(t *testing.T) {
	c, mux, srv, _ := setup(t)
	mux.HandleFunc("GET /contact-groups/{id}/contacts", func(w http.ResponseWriter, r *http.Request) {
		p := max(atoi(r.URL.Query().Get("page")), 1)
		next := "null"
		if p < 3 {
			next = fmt.Sprintf(`"%s/api/v1/contact-groups/12/contacts?page=%d"`, srv.URL, p+1)
		}
		writeJSON(w, 200, fmt.Sprintf(`{"data":%s,"current_page":%d,"next_page_url":%s,"total":7}`, pageItems(p), p, next))
	})
	var last ListProgress
	if _, err := c.ListContacts(context.Background(), "12", func(p ListProgress) { last = p }); err != nil {
		t.Fatal(err)
	}
	if last.Total != 7 {
		t.Errorf("Total = %d, want 7", last.Total)
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func TestClient_ListContacts_OnePageShapes(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []model.Contact
	}{
		{"bare array", `[{"id":1,"name":"a","mobile":"09120000001"}]`, []model.Contact{{ID: "1", GroupID: "12", Name: "a", Mobile: "09120000001"}}},
		{"envelope", `{"success":true,"data":[{"id":"x-1","name":null,"phone":"09120000001","group_id":12}],"message":null}`, []model.Contact{{ID: "x-1", GroupID: "12", Mobile: "09120000001"}}},
		{"huge and string ids", `{"data":[{"id":9007199254740993,"mobile":"1"},{"contact_id":"007","number":"2"},{"uuid":"u-3","recipient":"3"},{"_id":"m4","mobile":"4"}]}`,
			[]model.Contact{{ID: "9007199254740993", GroupID: "12", Mobile: "1"}, {ID: "007", GroupID: "12", Mobile: "2"}, {ID: "u-3", GroupID: "12", Mobile: "3"}, {ID: "m4", GroupID: "12", Mobile: "4"}}},
		{"first and last name", `[{"id":1,"first_name":"Ali","last_name":"Rezaei","mobile":"1","unknown":{"x":[1,2]}}]`, []model.Contact{{ID: "1", GroupID: "12", Name: "Ali Rezaei", Mobile: "1"}}},
		// names are data: kept exact (--json escapes them, displays sanitise them)
		{"escape sequences in name", "[{\"id\":1,\"name\":\"evil\\u001b]0;title\\u0007 name\",\"mobile\":\"1\"}]", []model.Contact{{ID: "1", GroupID: "12", Name: "evil\x1b]0;title\a name", Mobile: "1"}}},
		{"empty list", `{"data":[]}`, nil},
		{"empty body", ``, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _, _ := setup(t)
			mux.HandleFunc("GET /contact-groups/12/contacts", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, tt.body) })
			got, err := c.ListContacts(context.Background(), "12", nil)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestClient_ListContacts_PagingGuards(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the key went to another host: %s", r.Header.Get("Authorization"))
	}))
	defer other.Close()
	tests := []struct {
		name    string
		cap     int
		answer  func(base string, p int) string
		wantErr string
		wantReq int
	}{
		{"same next link twice", 0, func(base string, p int) string {
			return fmt.Sprintf(`{"data":[{"id":%d}],"next_page_url":"%s?page=2"}`, p, base)
		}, "same next-page link twice", 2},
		{"same page twice", 0, func(base string, p int) string {
			return `{"data":[{"id":1}],"current_page":1,"last_page":5}`
		}, "page 1 twice", 2},
		{"same content twice", 0, func(base string, p int) string {
			return fmt.Sprintf(`{"items":[{"id":1},{"id":2}],"next":"%s?page=%d"}`, base, p+1)
		}, "repeats the previous page", 2},
		{"page cap", 4, func(base string, p int) string {
			return fmt.Sprintf(`{"items":[{"id":%d}],"next":"%s?page=%d"}`, p, base, p+1)
		}, "page cap", 4},
		{"next to another host", 0, func(base string, p int) string {
			return fmt.Sprintf(`{"items":[{"id":1}],"next":"%s/steal?page=2"}`, other.URL)
		}, "refusing to send the key there", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, srv, _ := setup(t, WithPageCap(tt.cap))
			var n counter
			mux.HandleFunc("GET /contact-groups/12/contacts", func(w http.ResponseWriter, r *http.Request) {
				n.inc()
				p := max(atoi(r.URL.Query().Get("page")), 1)
				writeJSON(w, 200, tt.answer(srv.URL+"/api/v1/contact-groups/12/contacts", p))
			})
			got, err := c.ListContacts(context.Background(), "12", nil)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrPaging) {
				t.Fatalf("err = %v, want ErrPaging mentioning %q", err, tt.wantErr)
			}
			if n.get() != tt.wantReq {
				t.Errorf("server saw %d requests, want %d", n.get(), tt.wantReq)
			}
			if len(got) == 0 {
				t.Errorf("the contacts read before the error were dropped")
			}
		})
	}
}

func TestCheckNext(t *testing.T) {
	c := &Client{base: mustURL("https://sms.example.com/api/v1/")}
	tests := []struct{ in, want, wantErr string }{
		{"https://sms.example.com/api/v1/x?page=2", "https://sms.example.com/api/v1/x?page=2", ""},
		{"https://SMS.example.com:443/api/v1/x?page=2", "https://SMS.example.com:443/api/v1/x?page=2", ""},
		{"http://sms.example.com/api/v1/x?page=2", "https://sms.example.com/api/v1/x?page=2", ""},
		{"https://evil.example.com/api/v1/x", "", "evil.example.com"},
		{"https://sms.example.com:8443/x", "", "refusing"},
	}
	for _, tt := range tests {
		got, err := c.checkNext(mustURL(tt.in))
		switch {
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("checkNext(%s) err = %v, want %q", tt.in, err, tt.wantErr)
		case tt.wantErr == "" && (err != nil || got.String() != tt.want):
			t.Errorf("checkNext(%s) = %v, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

func TestLinkNext(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{`<https://a/x?page=2>; rel="next", <https://a/x?page=9>; rel="last"`}, "https://a/x?page=2"},
		{[]string{`<https://a/x?page=1>; rel="prev"`, `<https://a/x?page=3>; rel=next`}, "https://a/x?page=3"},
		{[]string{`<https://a/x?page=3>; title="t"; rel="next prefetch"`}, "https://a/x?page=3"},
		{[]string{`https://a/x; rel="next"`}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := linkNext(tt.in); got != tt.want {
			t.Errorf("linkNext(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzParsePage: no list answer makes the pager panic.
func FuzzParsePage(f *testing.F) {
	for _, s := range []string{
		`[{"id":1}]`, `{"data":[{"id":1}],"current_page":1,"last_page":2}`, `{"data":{"data":[],"next_page_url":"?page=2"}}`,
		`{"items":[1,"x",null],"next":"2"}`, `{"meta":{"pagination":{}},"data":[]}`, `{"links":{"next":{"href":"/x"}},"data":[]}`,
		`{"success":false}`, `"text"`, `{"data":{"contacts":[{"id":{"x":1}}]},"next_cursor":"abc"}`,
	} {
		f.Add(s, `<x?page=2>; rel="next"`)
	}
	c := &Client{key: testKey, base: mustURL("https://h/api/v1/"), now: time.Now}
	f.Fuzz(func(t *testing.T, body, link string) {
		u := mustURL("https://h/api/v1/contact-groups/1/contacts")
		r := &request{method: "GET", u: u}
		h := http.Header{}
		h.Set("Link", link)
		pg, err := c.readPage(r, &response{status: 200, header: h, body: []byte(body), url: u})
		if err == nil {
			for _, j := range pg.contacts {
				_ = c.contact(j)
			}
		}
	})
}
