package sandbox

import (
	"bytes"
	"crypto/sha256"
	"io"
	"net/http"
	"sync"
)

// idempotencyCache remembers the first answer to each (path, Idempotency-Key)
// and replays it to later requests with the same key. A later request with the
// same key and a different body gets 422 idempotency_key_reused. A request that
// arrives while the first is in flight waits for it. Memory only; the oldest
// entries are forgotten past max.
type idempotencyCache struct {
	max int

	mu      sync.Mutex
	entries map[string]*idemEntry
	order   []string
}

type idemEntry struct {
	bodyHash [sha256.Size]byte
	done     chan struct{}
	status   int
	header   http.Header
	body     []byte
}

func newIdempotencyCache(max int) *idempotencyCache {
	return &idempotencyCache{max: max, entries: map[string]*idemEntry{}}
}

func (c *idempotencyCache) serve(w http.ResponseWriter, r *http.Request, key string, next http.Handler) {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
	if err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", "could not read the request body", nil)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	sum := sha256.Sum256(b)

	c.mu.Lock()
	e, seen := c.entries[key]
	if !seen {
		e = &idemEntry{bodyHash: sum, done: make(chan struct{})}
		c.entries[key] = e
		c.order = append(c.order, key)
		if len(c.order) > c.max {
			delete(c.entries, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.mu.Unlock()

	if !seen {
		rec := &recorder{header: http.Header{}, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		e.status, e.header, e.body = rec.status, rec.header, rec.buf.Bytes()
		close(e.done)
		e.replay(w, false)
		return
	}
	if e.bodyHash != sum {
		writeError(w, http.StatusUnprocessableEntity, "idempotency_key_reused",
			"this Idempotency-Key was used with a different request body; use a new key for a new request", nil)
		return
	}
	select {
	case <-e.done:
		e.replay(w, true)
	case <-r.Context().Done():
	}
}

// replay writes the remembered answer.
func (e *idemEntry) replay(w http.ResponseWriter, replayed bool) {
	for k, v := range e.header {
		w.Header()[k] = v
	}
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.WriteHeader(e.status)
	_, _ = w.Write(e.body) // a client that hung up has nothing left to be told
}

// recorder captures an answer for the cache.
type recorder struct {
	header http.Header
	status int
	wrote  bool
	buf    bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.buf.Write(b)
}
