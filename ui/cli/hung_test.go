package cli

import (
	"net"
	"sync"
	"testing"
)

// hungService takes connections and never reads or answers: a service that
// hangs. It counts what it took, so a test can tell one attempt from a
// retry without reading a clock.
type hungService struct {
	ln      net.Listener
	mu      sync.Mutex
	held    []net.Conn
	took    chan net.Conn // every accepted connection, in order
	markers map[string]bool
}

// newHungService listens on loopback until the test ends.
func newHungService(t *testing.T) *hungService {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &hungService{ln: ln, took: make(chan net.Conn, 64), markers: map[string]bool{}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(h.took)
				return
			}
			h.mu.Lock()
			h.held = append(h.held, c)
			h.mu.Unlock()
			h.took <- c
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for range h.took { // until the accept loop has ended
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, c := range h.held {
			c.Close()
		}
	})
	return h
}

// Addr is host:port.
func (h *hungService) Addr() string { return h.ln.Addr().String() }

// Taken says how many connections others made since the last call. It
// connects once itself and counts the connections accepted before its own:
// the kernel hands them over in the order they were made, so every
// connection made before the call is counted, however late the accept
// loop is.
func (h *hungService) Taken(t *testing.T) int {
	t.Helper()
	marker, err := net.Dial("tcp", h.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer marker.Close()
	mine := marker.LocalAddr().String()
	n := 0
	for c := range h.took {
		if c.RemoteAddr().String() == mine {
			return n
		}
		n++
	}
	t.Fatal("the hung service stopped listening")
	return 0
}
