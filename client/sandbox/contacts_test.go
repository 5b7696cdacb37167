package sandbox

import (
	"fmt"
	"strings"
	"testing"
)

func TestCreateGroup(t *testing.T) {
	e := setup(t, Options{})
	tests := []struct {
		name   string
		body   any
		status int
		field  string // the field a 422 must name
	}{
		{"name only", map[string]any{"name": "مشتریان"}, 201, ""},
		{"with description", map[string]any{"name": "Support", "description": "on call"}, 201, ""},
		{"100 runes", map[string]any{"name": strings.Repeat("ن", 100)}, 201, ""},
		{"missing name", map[string]any{"description": "x"}, 422, "name"},
		{"blank name", map[string]any{"name": "   "}, 422, "name"},
		{"null name", map[string]any{"name": nil}, 422, "name"},
		{"numeric name", map[string]any{"name": 5}, 422, "name"},
		{"101 runes", map[string]any{"name": strings.Repeat("ن", 101)}, 422, "name"},
		{"long description", map[string]any{"name": "x", "description": strings.Repeat("a", 256)}, 422, "description"},
	}
	prev := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", "/contact-groups", tt.body)
			if tt.status != 201 {
				r.wantError(t, 422, "validation_failed")
				errs, _ := r.body["errors"].(map[string]any)
				if _, ok := errs[tt.field]; !ok {
					t.Errorf("errors do not name %q: %s", tt.field, r.raw)
				}
				return
			}
			d := r.data(t, 201)
			id := num(t, d, "id")
			if id <= prev {
				t.Errorf("id %d not after %d", id, prev)
			}
			prev = id
			want := tt.body.(map[string]any)
			if d["name"] != want["name"] {
				t.Errorf("name %v, want %v", d["name"], want["name"])
			}
			if desc, ok := want["description"]; ok && d["description"] != desc {
				t.Errorf("description %v, want %v", d["description"], desc)
			} else if !ok && d["description"] != nil {
				t.Errorf("description %v, want null", d["description"])
			}
			if s, _ := d["created_at"].(string); s == "" {
				t.Error("no created_at")
			}
			if r.body["message"] != nil {
				t.Errorf("message %v, want null", r.body["message"])
			}
		})
	}
}

func TestAddContact(t *testing.T) {
	e := setup(t, Options{})
	gid := e.mkGroup("g")
	other := e.mkGroup("other")
	tests := []struct {
		name       string
		body       map[string]any
		status     int
		code       string
		wantMobile string
	}{
		{"plain", map[string]any{"group_id": gid, "name": "Ali", "mobile": "09121234567"}, 201, "", "09121234567"},
		{"string group id, +98 form", map[string]any{"group_id": fmt.Sprint(gid), "mobile": "+98 935 111 2233"}, 201, "", "09351112233"},
		{"persian digits", map[string]any{"group_id": gid, "mobile": "۰۹۹۰۱۲۳۴۵۶۷"}, 201, "", "09901234567"},
		{"same mobile, other group", map[string]any{"group_id": other, "mobile": "09121234567"}, 201, "", "09121234567"},
		{"duplicate in group", map[string]any{"group_id": gid, "mobile": "+989121234567"}, 422, "duplicate_contact", ""},
		{"unknown group", map[string]any{"group_id": 9999, "mobile": "09121234567"}, 404, "not_found", ""},
		{"invalid mobile", map[string]any{"group_id": gid, "mobile": "02188776655"}, 422, "invalid_recipient", ""},
		{"foreign mobile", map[string]any{"group_id": gid, "mobile": "+447911123456"}, 422, "invalid_recipient", ""},
		{"missing mobile", map[string]any{"group_id": gid}, 422, "validation_failed", ""},
		{"missing group", map[string]any{"mobile": "09121234567"}, 422, "validation_failed", ""},
		{"group id not a number", map[string]any{"group_id": "abc", "mobile": "09121234567"}, 422, "validation_failed", ""},
		{"group id fractional", map[string]any{"group_id": 1.5, "mobile": "09121234567"}, 422, "validation_failed", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", "/contacts", tt.body)
			if tt.status != 201 {
				r.wantError(t, tt.status, tt.code)
				return
			}
			d := r.data(t, 201)
			if d["mobile"] != tt.wantMobile {
				t.Errorf("mobile %v, want %s", d["mobile"], tt.wantMobile)
			}
			if g := num(t, d, "group_id"); fmt.Sprint(g) != fmt.Sprint(tt.body["group_id"]) {
				t.Errorf("group_id %d, want %v", g, tt.body["group_id"])
			}
			if name, ok := tt.body["name"]; ok && d["name"] != name {
				t.Errorf("name %v, want %v", d["name"], name)
			} else if !ok && d["name"] != nil {
				t.Errorf("name %v, want null", d["name"])
			}
			num(t, d, "id")
		})
	}
	// The invalid-mobile answer says why, per field.
	r := e.do("POST", "/contacts", map[string]any{"group_id": gid, "mobile": "0912"})
	errs, _ := r.body["errors"].(map[string]any)
	if list, _ := errs["mobile"].([]any); len(list) == 0 || !strings.Contains(r.body["message"].(string), list[0].(string)) {
		t.Errorf("invalid mobile answer lacks the reason: %s", r.raw)
	}
}

// walk follows links.next from the first page and returns every contact's id
// and the pages seen.
func (e *env) walk(gid int, query string) (ids []int, pages int, total int) {
	e.t.Helper()
	url := fmt.Sprintf("%s/contact-groups/%d/contacts%s", e.base, gid, query)
	for url != "" {
		pages++
		if pages > 100 {
			e.t.Fatal("paging does not end")
		}
		r := e.do("GET", url, nil)
		if r.status != 200 || r.body["success"] != true {
			e.t.Fatalf("GET %s: %d %s", url, r.status, r.raw)
		}
		for _, c := range r.body["data"].([]any) {
			ids = append(ids, num(e.t, c.(map[string]any), "id"))
		}
		meta := r.body["meta"].(map[string]any)
		if num(e.t, meta, "current_page") != pages {
			e.t.Errorf("current_page %v on page %d", meta["current_page"], pages)
		}
		total = num(e.t, meta, "total")
		next, _ := r.body["links"].(map[string]any)["next"].(string)
		if (next == "") != (pages == num(e.t, meta, "last_page")) {
			e.t.Errorf("page %d of %v: next %q", pages, meta["last_page"], next)
		}
		url = next
	}
	return ids, pages, total
}

func TestListContactsPaging(t *testing.T) {
	e := setup(t, Options{PageSize: 7})
	gid := e.mkGroup("many")
	empty := e.mkGroup("empty")
	other := e.mkGroup("other")
	e.mkContact(other, "09350000001")
	var want []int
	for i := 0; i < 23; i++ {
		want = append(want, e.mkContact(gid, fmt.Sprintf("0912%07d", 1000000+i)))
	}
	tests := []struct {
		name      string
		gid       int
		query     string
		wantPages int
		wantN     int
	}{
		{"default size", gid, "", 4, 23},
		{"per_page", gid, "?per_page=10", 3, 23},
		{"limit", gid, "?limit=23", 1, 23},
		{"over the cap is capped", gid, "?per_page=5000", 1, 23},
		{"empty group", empty, "", 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids, pages, total := e.walk(tt.gid, tt.query)
			if pages != tt.wantPages || len(ids) != tt.wantN || total != tt.wantN {
				t.Fatalf("pages %d ids %d total %d; want %d pages of %d", pages, len(ids), total, tt.wantPages, tt.wantN)
			}
			if tt.wantN > 0 && fmt.Sprint(ids) != fmt.Sprint(want) {
				t.Errorf("ids %v, want %v", ids, want)
			}
		})
	}
	r := e.do("GET", fmt.Sprintf("/contact-groups/%d/contacts?page=99", gid), nil)
	if d := r.body["data"].([]any); r.status != 200 || len(d) != 0 || r.body["links"].(map[string]any)["next"] != nil {
		t.Errorf("page past the end: %d %s", r.status, r.raw)
	}
	r = e.do("GET", fmt.Sprintf("/contact-groups/%d/contacts?page=9223372036854775807", gid), nil)
	if r.status != 200 || len(r.body["data"].([]any)) != 0 {
		t.Errorf("huge page: %d %s", r.status, r.raw)
	}
	for _, q := range []string{"?page=0", "?page=x", "?per_page=0", "?limit=-1"} {
		e.do("GET", fmt.Sprintf("/contact-groups/%d/contacts%s", gid, q), nil).wantError(t, 422, "validation_failed")
	}
	for _, id := range []string{"999", "abc", "0", "-1"} {
		e.do("GET", "/contact-groups/"+id+"/contacts", nil).wantError(t, 404, "not_found")
	}
}

func TestDeleteContact(t *testing.T) {
	e := setup(t, Options{})
	gid := e.mkGroup("g")
	a := e.mkContact(gid, "09121111111")
	b := e.mkContact(gid, "09122222222")
	r := e.do("DELETE", fmt.Sprintf("/contacts/%d", a), nil)
	if r.status != 200 || r.body["success"] != true || r.body["data"] != nil || r.body["message"] != "deleted" {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	for _, id := range []string{fmt.Sprint(a), "12345", "abc"} {
		e.do("DELETE", "/contacts/"+id, nil).wantError(t, 404, "not_found")
	}
	ids, _, _ := e.walk(gid, "")
	if fmt.Sprint(ids) != fmt.Sprint([]int{b}) {
		t.Errorf("after delete: %v, want [%d]", ids, b)
	}
	// The freed mobile can be added again, with a new id.
	if c := e.mkContact(gid, "09121111111"); c == a {
		t.Errorf("id %d reused", c)
	}
}

func TestSeed(t *testing.T) {
	e := setup(t, Options{Seed: true})
	seen := 0
	for gid := 1; ; gid++ {
		r := e.do("GET", fmt.Sprintf("/contact-groups/%d/contacts?per_page=1000", gid), nil)
		if r.status == 404 {
			break
		}
		ids, _, total := e.walk(gid, "")
		if total == 0 || len(ids) != total {
			t.Errorf("group %d: %d of %d contacts", gid, len(ids), total)
		}
		seen++
	}
	if seen < 3 {
		t.Fatalf("seed made %d groups, want at least 3", seen)
	}
	ids, pages, _ := e.walk(seen, "")
	if len(ids) != 300 || pages != 6 {
		t.Errorf("generated group: %d contacts on %d pages, want 300 on 6", len(ids), pages)
	}
	// Seed senders are the account's lines.
	r := e.do("POST", "/sms/send-pair", map[string]any{"sender": "10004346", "items": []any{map[string]any{"recipient": "09121234567", "message": "hi"}}})
	if d := r.data(t, 200); num(t, d, "accepted") != 1 {
		t.Errorf("send from a seed line: %s", r.raw)
	}
}

func TestGeneratedMobilesDistinct(t *testing.T) {
	seen := map[string]bool{}
	for i := 1; i <= 5000; i++ {
		m := generatedMobile(i)
		if got, reason := iranianMobile(m); reason != "" || got != m {
			t.Fatalf("generatedMobile(%d) = %s: %s", i, m, reason)
		}
		if seen[m] || strings.HasSuffix(m, "0000") {
			t.Fatalf("generatedMobile(%d) = %s: duplicate or ends in 0000", i, m)
		}
		seen[m] = true
	}
}
