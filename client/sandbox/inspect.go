package sandbox

import (
	"slices"
	"strconv"
	"strings"

	"github.com/smsdesk/smsdesk/model"
)

// Groups returns every group the sandbox holds, in creation order, so that a
// demo can start with the seed groups already known.
func (s *Server) Groups() []model.Group {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]model.Group, len(s.state.Groups))
	for i, g := range s.state.Groups {
		out[i] = model.Group{ID: model.ID(strconv.FormatInt(g.ID, 10)), Name: g.Name, Description: g.Description}
	}
	return out
}

// Senders returns the sender lines the sandbox account owns, sorted.
func (s *Server) Senders() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.senders))
	for l := range s.senders {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// countRequest records one request by method and path below the API root.
func (s *Server) countRequest(method, path string) {
	key := method + " " + strings.TrimPrefix(path, apiPrefix)
	s.countMu.Lock()
	if s.byPath == nil {
		s.byPath = map[string]int{}
	}
	s.byPath[key]++
	s.countMu.Unlock()
}

// RequestsTo returns how many requests for method and path (below the API
// root, e.g. "POST", "/sms/send-pair") were served, whatever the answer
// (401s, 402s and 429s included): the record tests check "nothing reached the
// service" against.
func (s *Server) RequestsTo(method, path string) int {
	s.countMu.Lock()
	defer s.countMu.Unlock()
	return s.byPath[method+" "+path]
}
