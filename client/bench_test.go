package client

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkParsePage reads one Laravel-style page of 1,000 contacts.
func BenchmarkParsePage(b *testing.B) {
	var items []string
	for i := range 1000 {
		items = append(items, fmt.Sprintf(`{"id":%d,"group_id":12,"name":"Contact %d","mobile":"0912%07d","created_at":"2025-01-01T00:00:00Z"}`, 9007199254740000+i, i, i))
	}
	body := []byte(`{"current_page":1,"data":[` + strings.Join(items, ",") + `],"last_page":10,"next_page_url":"https://h/api/v1/contact-groups/12/contacts?page=2","total":10000}`)
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
