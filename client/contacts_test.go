package client

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/smsdesk/smsdesk/model"
)

func TestClient_CreateGroup(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		location string
		want     model.Group
	}{
		{"documented envelope", 201, `{"success":true,"data":{"id":12,"name":"VIPs","description":"best"},"message":null}`, "", model.Group{ID: "12", Name: "VIPs", Description: "best"}},
		{"bare record", 200, `{"id":13,"name":"VIPs","description":"best","created_at":"x"}`, "", model.Group{ID: "13", Name: "VIPs", Description: "best"}},
		{"data wrapper only", 201, `{"data":{"id":"g-14"}}`, "", model.Group{ID: "g-14", Name: "VIPs", Description: "best"}},
		{"bare id number", 201, `15`, "", model.Group{ID: "15", Name: "VIPs", Description: "best"}},
		{"bare id string", 201, `"abc-16"`, "", model.Group{ID: "abc-16", Name: "VIPs", Description: "best"}},
		{"id only, no echo", 201, `{"id":17}`, "", model.Group{ID: "17", Name: "VIPs", Description: "best"}},
		{"group_id", 201, `{"success":true,"data":{"group_id":18}}`, "", model.Group{ID: "18", Name: "VIPs", Description: "best"}},
		{"nested group", 201, `{"data":{"group":{"id":19,"name":"VIPs (1)"}}}`, "", model.Group{ID: "19", Name: "VIPs (1)", Description: "best"}},
		{"huge id", 201, `{"data":{"id":9007199254740993}}`, "", model.Group{ID: "9007199254740993", Name: "VIPs", Description: "best"}},
		{"empty body with Location", 201, ``, "/api/v1/contact-groups/20", model.Group{ID: "20", Name: "VIPs", Description: "best"}},
		{"null name in answer", 201, `{"id":21,"name":null}`, "", model.Group{ID: "21", Name: "VIPs", Description: "best"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _, _ := setup(t)
			mux.HandleFunc("POST /contact-groups", func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Idempotency-Key") == "" {
					t.Error("no Idempotency-Key")
				}
				b := readBody(t, r)
				if b["name"] != "VIPs" || b["description"] != "best" {
					t.Errorf("body = %v", b)
				}
				if tt.location != "" {
					w.Header().Set("Location", tt.location)
				}
				writeJSON(w, tt.status, tt.body)
			})
			got, err := c.CreateGroup(context.Background(), NewGroup{Name: "VIPs", Description: "best"})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestClient_CreateGroup_NoID(t *testing.T) {
	c, mux, _, _ := setup(t)
	mux.HandleFunc("POST /contact-groups", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 201, `{"success":true,"data":{"name":"VIPs"}}`)
	})
	g, err := c.CreateGroup(context.Background(), NewGroup{Name: "VIPs"})
	if !errors.Is(err, ErrMissingID) || g.Name != "VIPs" {
		t.Fatalf("got %+v, %v; want ErrMissingID with the record", g, err)
	}
	if _, err := c.CreateGroup(context.Background(), NewGroup{Name: " "}); err == nil {
		t.Fatal("empty name accepted")
	}
}

func TestClient_CreateGroup_SuccessFalseIn200(t *testing.T) {
	c, mux, _, _ := setup(t)
	mux.HandleFunc("POST /contact-groups", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"success":false,"error_code":"name_taken","message":"A group with this name exists"}`)
	})
	_, err := c.CreateGroup(context.Background(), NewGroup{Name: "VIPs"})
	var ae *APIError
	if !errors.As(err, &ae) || ae.Code != "name_taken" || ae.Status != 200 {
		t.Fatalf("err = %v, want the service's refusal", err)
	}
}

func TestClient_AddContact(t *testing.T) {
	tests := []struct {
		name string
		body string
		want model.Contact
	}{
		{"documented envelope", `{"success":true,"data":{"id":101,"group_id":12,"name":"Sara","mobile":"09121234567"}}`, model.Contact{ID: "101", GroupID: "12", Name: "Sara", Mobile: "09121234567"}},
		{"contact_id beside a pivot id", `{"data":{"id":1,"contact_id":102,"group_id":12}}`, model.Contact{ID: "102", GroupID: "12", Name: "Sara", Mobile: "09121234567"}},
		{"uuid", `{"uuid":"c0ffee","phone":"+989121234567","name":null}`, model.Contact{ID: "c0ffee", GroupID: "12", Name: "Sara", Mobile: "+989121234567"}},
		{"_id", `{"_id":"65f0a1","number":"09121234567"}`, model.Contact{ID: "65f0a1", GroupID: "12", Name: "Sara", Mobile: "09121234567"}},
		{"string id", `{"data":{"id":"103"}}`, model.Contact{ID: "103", GroupID: "12", Name: "Sara", Mobile: "09121234567"}},
		{"only an id", `104`, model.Contact{ID: "104", GroupID: "12", Name: "Sara", Mobile: "09121234567"}},
		{"nested contact", `{"data":{"contact":{"id":105,"recipient":"09121234567","group":{"id":12}}}}`, model.Contact{ID: "105", GroupID: "12", Name: "Sara", Mobile: "09121234567"}},
		{"huge id", `{"id":9007199254740993}`, model.Contact{ID: "9007199254740993", GroupID: "12", Name: "Sara", Mobile: "09121234567"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _, _ := setup(t)
			mux.HandleFunc("POST /contacts", func(w http.ResponseWriter, r *http.Request) {
				b := readBody(t, r)
				if b["group_id"] != jsonNumber("12") || b["mobile"] != "09121234567" || b["name"] != "Sara" {
					t.Errorf("body = %#v", b)
				}
				writeJSON(w, 201, tt.body)
			})
			got, err := c.AddContact(context.Background(), NewContact{GroupID: "12", Name: "Sara", Mobile: "09121234567"})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestClient_AddContact_HugeGroupIDExact(t *testing.T) {
	c, mux, _, _ := setup(t)
	mux.HandleFunc("POST /contacts", func(w http.ResponseWriter, r *http.Request) {
		if b := readBody(t, r); b["group_id"] != jsonNumber("9007199254740993") {
			t.Errorf("group_id = %#v, want the exact number", b["group_id"])
		}
		writeJSON(w, 201, `{"id":1}`)
	})
	if _, err := c.AddContact(context.Background(), NewContact{GroupID: "9007199254740993", Mobile: "09121234567"}); err != nil {
		t.Fatal(err)
	}
}

func TestClient_DeleteContact(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		wantErr error
	}{
		{"200 envelope", 200, `{"success":true,"data":null,"message":"Deleted"}`, nil},
		{"200 record", 200, `{"id":5,"deleted":true}`, nil},
		{"200 text", 200, `OK`, nil},
		{"202", 202, ``, nil},
		{"204", 204, ``, nil},
		{"404", 404, `{"success":false,"error_code":"not_found","message":"No such contact"}`, ErrNotFound},
		{"success false in 200", 200, `{"success":false,"error_code":"locked","message":"Contact is locked"}`, errAnyAPI},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _, _ := setup(t)
			var n counter
			mux.HandleFunc("DELETE /contacts/{id}", func(w http.ResponseWriter, r *http.Request) {
				n.inc()
				if r.PathValue("id") != "5" {
					t.Errorf("id = %q", r.PathValue("id"))
				}
				writeJSON(w, tt.status, tt.body)
			})
			err := c.DeleteContact(context.Background(), "5")
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("err = %v", err)
			case tt.wantErr == errAnyAPI:
				var ae *APIError
				if !errors.As(err, &ae) || ae.Code != "locked" {
					t.Fatalf("err = %v, want the service's refusal", err)
				}
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if n.get() != 1 {
				t.Errorf("server saw %d requests, want 1", n.get())
			}
		})
	}
}

// errAnyAPI marks a table row that wants the service's own *APIError.
var errAnyAPI = errors.New("any API error")

// TestClient_Verify: the key counts as accepted only after an answer 2xx in
// the API's shape (group 0's list, the credit, a known group's list); a
// base URL whose every path answers 404 in the API's envelope is
// ErrNotProved (issue 27 item 10: status said ✓ there).
func TestClient_Verify(t *testing.T) {
	const credit = `{"success":true,"data":{"rial":1000,"sms_count":10},"message":null}`
	const group7 = `{"success":true,"data":[],"meta":{"current_page":1,"per_page":1,"total":0,"last_page":1},"links":{"next":null},"message":null}`
	envelope404 := `{"success":false,"error_code":"not_found","message":"No group 0"}`
	tests := []struct {
		status    int
		body      string
		everyPath bool   // the server answers every path so
		proof     string // "credit" or "group": that probe answers 2xx
		wantErr   error
	}{
		{200, `{"data":[]}`, false, "", nil},
		{200, `[]`, false, "", nil},
		{404, envelope404, false, "credit", nil},
		{404, envelope404, false, "group", nil},
		{404, envelope404, false, "", ErrNotProved},
		{404, envelope404, true, "", ErrNotProved}, // a base URL one segment off: every path in the envelope
		{422, `{"message":"invalid id"}`, false, "credit", nil},
		{422, `{"message":"invalid id"}`, false, "", ErrNotProved},
		{404, `{"message":"No query results for model [Group] 0"}`, false, "credit", nil}, // a deployment's own error style
		{404, `{"message":"Not Found"}`, true, "", ErrNotAPI},                             // a JSON 404 for every path: no API here
		{404, `{"message":"The route api/v1/contact-groups/0/contacts could not be found."}`, false, "", ErrNotAPI},
		{404, `<html><body>404</body></html>`, false, "", ErrNotAPI},
		{200, `{"status":"ok"}`, false, "", ErrNotAPI}, // a health page, not the API's envelope
		{401, `{"success":false,"error_code":"unauthorized","message":"Invalid key"}`, false, "", ErrUnauthorized},
		{403, `{"error":"forbidden"}`, false, "", ErrForbidden},
	}
	for _, tt := range tests {
		c, mux, _, _ := setup(t)
		h := func(w http.ResponseWriter, r *http.Request) { writeJSON(w, tt.status, tt.body) }
		mux.HandleFunc("GET /contact-groups/0/contacts", h)
		if tt.everyPath {
			mux.HandleFunc("/", h)
		}
		switch tt.proof {
		case "credit":
			mux.HandleFunc("GET /account/credit", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, credit) })
		case "group":
			mux.HandleFunc("GET /contact-groups/7/contacts", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, group7) })
		}
		err := c.Verify(context.Background(), "7")
		if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
			t.Errorf("%d %s (every path %v, proof %q): Verify = %v, want %v", tt.status, tt.body, tt.everyPath, tt.proof, err, tt.wantErr)
		}
	}
}

func TestClient_MessageStatus(t *testing.T) {
	tests := []struct {
		body string
		want DeliveryState
	}{
		{`{"success":true,"data":{"message_id":"m1","status":"delivered","updated_at":"2025-01-02T03:04:05Z"}}`, DeliveryDelivered},
		{`{"status":"pending"}`, DeliveryPending},
		{`{"data":{"state":"queued"}}`, DeliveryPending},
		{`{"data":"sent"}`, DeliverySent},
		{`"undelivered"`, DeliveryFailed},
		{`{"message":{"id":"m1","delivery_status":"REJECTED"}}`, DeliveryRejected},
		{`{"status":"on_hold"}`, DeliveryState("on_hold")},
	}
	for _, tt := range tests {
		c, mux, _, _ := setup(t)
		mux.HandleFunc("GET /sms/{id}/status", func(w http.ResponseWriter, r *http.Request) {
			if r.PathValue("id") != "m1" {
				t.Errorf("id = %q", r.PathValue("id"))
			}
			writeJSON(w, 200, tt.body)
		})
		got, err := c.MessageStatus(context.Background(), "m1")
		if err != nil {
			t.Fatalf("%s: %v", tt.body, err)
		}
		if got.State != tt.want || got.MessageID != "m1" {
			t.Errorf("%s: got %+v, want state %q", tt.body, got, tt.want)
		}
		if tt.want == DeliveryDelivered && got.UpdatedAt.Year() != 2025 {
			t.Errorf("UpdatedAt = %v", got.UpdatedAt)
		}
	}
}

func TestClient_MessageStatus_NotFoundTurnsFeatureOff(t *testing.T) {
	c, mux, _, _ := setup(t)
	mux.HandleFunc("GET /sms/{id}/status", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 404, `{"message":"Not Found"}`)
	})
	if _, err := c.MessageStatus(context.Background(), "m1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
}
