package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/model"
)

func TestClient_Credit(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   model.Credit
		is     error  // the error errors.Is must match
		text   string // or a substring of the error
	}{
		{"documented", 200, `{"success":true,"data":{"rial":1200000,"sms_count":800},"message":null}`,
			model.Credit{Rial: 1200000, Parts: 800, HasRial: true, HasParts: true}, nil, ""},
		{"bare", 200, `{"rial":"1,200","sms_count":"80"}`, model.Credit{Rial: 1200, Parts: 80, HasRial: true, HasParts: true}, nil, ""},
		{"parts only, fraction", 200, `{"success":true,"data":{"sms_count":12.7}}`, model.Credit{Parts: 12, HasParts: true}, nil, ""},
		{"zero is a figure", 200, `{"success":true,"data":{"rial":0,"sms_count":0}}`, model.Credit{HasRial: true, HasParts: true}, nil, ""},
		{"not found: off", 404, `{"success":false,"error_code":"not_found","message":"no such endpoint"}`, model.Credit{}, ErrNoCreditEndpoint, ""},
		{"method not allowed: off", 405, `{"success":false}`, model.Credit{}, ErrNoCreditEndpoint, ""},
		{"unauthorized", 401, `{"success":false,"error_code":"unauthorized","message":"bad key"}`, model.Credit{}, ErrUnauthorized, ""},
		{"success false in a 200", 200, `{"success":false,"error_code":"unauthorized","message":"bad key"}`, model.Credit{}, ErrUnauthorized, ""},
		{"no figures", 200, `{"success":true,"data":{"balance":5}}`, model.Credit{}, nil, "neither rial nor sms_count"},
		{"not a number", 200, `{"success":true,"data":{"rial":"lots"}}`, model.Credit{}, nil, "not an amount"},
		{"html", 200, `<html><body>proxy</body></html>`, model.Credit{}, nil, "HTML page"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, mux, _, _ := setup(t)
			mux.HandleFunc("/account/credit", func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodGet {
					t.Errorf("method %s", r.Method)
				}
				if strings.HasPrefix(tt.body, "<") {
					w.Header().Set("Content-Type", "text/html")
					w.WriteHeader(tt.status)
					w.Write([]byte(tt.body))
					return
				}
				writeJSON(w, tt.status, tt.body)
			})
			got, err := c.Credit(context.Background())
			switch {
			case tt.is != nil:
				if !errors.Is(err, tt.is) {
					t.Fatalf("error %v, want %v", err, tt.is)
				}
			case tt.text != "":
				if err == nil || !strings.Contains(err.Error(), tt.text) {
					t.Fatalf("error %v, want %q", err, tt.text)
				}
			case err != nil || got != tt.want:
				t.Fatalf("Credit = %+v, %v; want %+v", got, err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), testKey) {
				t.Errorf("the key leaked into the error: %v", err)
			}
		})
	}
}
