package client

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// benchPage is one page of 1,000 contacts around which wrap puts the paging.
func benchPage(b *testing.B, wrap string) {
	var items []string
	for i := range 1000 {
		items = append(items, fmt.Sprintf(`{"id":%d,"group_id":12,"name":"Contact %d","mobile":"0912%07d","created_at":"2025-01-01T00:00:00Z"}`, 9007199254740000+i, i, i))
	}
	body := []byte(fmt.Sprintf(wrap, strings.Join(items, ",")))
	c := &Client{key: testKey, base: mustURL("https://h/api/v1/"), now: time.Now}
	u := mustURL("https://h/api/v1/contact-groups/12/contacts")
	r := &request{method: "GET", u: u}
	res := &response{status: 200, header: http.Header{}, body: body, url: u}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		pg, err := c.readPage(r, res)
		if err != nil || len(pg.contacts) != 1000 || pg.next == nil {
			b.Fatal(err)
		}
		for _, j := range pg.contacts {
			_ = c.contact(j)
		}
	}
}

// BenchmarkParsePage reads one Laravel-paginator page of 1,000 contacts (not
// the documented shape: the typed path declines it, the tolerant reader reads it).
func BenchmarkParsePage(b *testing.B) {
	benchPage(b, `{"current_page":1,"data":[%s],"last_page":10,"next_page_url":"https://h/api/v1/contact-groups/12/contacts?page=2","total":10000}`)
}

// BenchmarkParsePageDocumented reads one page of 1,000 contacts in the
// documented answer (the typed path).
func BenchmarkParsePageDocumented(b *testing.B) {
	benchPage(b, `{"success":true,"data":[%s],"meta":{"current_page":1,"per_page":1000,"total":10000,"last_page":10},"links":{"first":"https://h/api/v1/contact-groups/12/contacts?page=1","last":"https://h/api/v1/contact-groups/12/contacts?page=10","prev":null,"next":"https://h/api/v1/contact-groups/12/contacts?page=2"},"message":null}`)
}
