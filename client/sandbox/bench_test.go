package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkSendPair100 measures one 100-item send-pair through the handler in
// process (no network), the sandbox's share of an engine benchmark.
func BenchmarkSendPair100(b *testing.B) {
	s, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	items := make([]map[string]string, 100)
	for i := range items {
		items[i] = map[string]string{"recipient": fmt.Sprintf("0912%07d", 1000000+i), "message": "سلام، سفارش شما ارسال شد."}
	}
	body, err := json.Marshal(map[string]any{"sender": DefaultSender, "items": items})
	if err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "/api/v1/sms/send-pair", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+s.Key())
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "items/s")
}
