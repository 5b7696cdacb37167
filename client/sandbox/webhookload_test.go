package sandbox

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestWebhookLoad is the load generator of BENCHMARKS.md's webhook cost,
// run by hand against a built receiver (smsdesk webhook); it is skipped
// unless SMSDESK_LOAD_URL names the receiver's URL:
//
//	SMSDESK_LOAD_URL=http://127.0.0.1:41710/webhook/default SMSDESK_LOAD_SECRET=… \
//	SMSDESK_LOAD_MESSAGES=5000 go test -run TestWebhookLoad -v ./client/sandbox
//
// It posts sms.sent and sms.delivered for the sandbox's messages msg_1 …
// msg_N (2N events), a tenth of them a second time, from
// SMSDESK_LOAD_WORKERS (default 32) connections at once, and reports the
// wall time and the answers' percentiles. Every answer must be 200.
func TestWebhookLoad(t *testing.T) {
	url := os.Getenv("SMSDESK_LOAD_URL")
	if url == "" {
		t.Skip("SMSDESK_LOAD_URL not set: the webhook load is run by hand (BENCHMARKS.md)")
	}
	secret := os.Getenv("SMSDESK_LOAD_SECRET")
	n, _ := strconv.Atoi(os.Getenv("SMSDESK_LOAD_MESSAGES"))
	if n <= 0 {
		n = 5000
	}
	workers, _ := strconv.Atoi(os.Getenv("SMSDESK_LOAD_WORKERS"))
	if workers <= 0 {
		workers = 32
	}
	var bodies [][]byte
	at := time.Now().UTC()
	for i := 1; i <= n; i++ {
		for k, kind := range []string{EventSent, EventDelivered} {
			b := DeliveryEvent(kind, fmt.Sprintf("msg_%d", i), fmt.Sprintf("0912%07d", i), at)
			bodies = append(bodies, b)
			if (2*i+k)%10 == 0 { // one event in ten posted again, a little later
				bodies = append(bodies, b)
			}
		}
	}
	jobs := make(chan []byte)
	var mu sync.Mutex
	var took []time.Duration
	codes := map[int]int{}
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}, Timeout: 30 * time.Second}
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for b := range jobs {
				t0 := time.Now()
				code, err := PostEvent(context.Background(), c, url, secret, b)
				d := time.Since(t0)
				mu.Lock()
				if err != nil {
					code = -1
				}
				codes[code]++
				took = append(took, d)
				mu.Unlock()
			}
		})
	}
	for _, b := range bodies {
		jobs <- b
	}
	close(jobs)
	wg.Wait()
	wall := time.Since(start)
	slices.Sort(took)
	pct := func(p float64) time.Duration { return took[min(len(took)-1, int(p*float64(len(took))))] }
	t.Logf("%d posts (%d events, %d again) from %d workers in %v: %.0f posts/s; answers p50 %v p90 %v p99 %v max %v; statuses %v",
		len(bodies), 2*n, len(bodies)-2*n, workers, wall.Round(time.Millisecond), float64(len(bodies))/wall.Seconds(),
		pct(0.5), pct(0.9), pct(0.99), took[len(took)-1], codes)
	if codes[200] != len(bodies) {
		t.Errorf("statuses %v: want every post answered 200", codes)
	}
}
