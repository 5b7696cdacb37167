package sandbox

import (
	"net/http"
	"net/http/httptest"
)

// ServeThenLose lets next answer the request (the service acts on it: a
// send is sent) and then closes the connection without the answer: what a
// flaky link or proxy does to the caller, who cannot tell whether it went.
// Tests and fault drills put it in front of the sandbox's handler.
func ServeThenLose(next http.Handler, w http.ResponseWriter, r *http.Request) {
	next.ServeHTTP(httptest.NewRecorder(), r)
	if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
		_ = conn.Close() // the point: the client never hears the answer
	}
}
