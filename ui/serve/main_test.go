package serve

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a goroutine outlives its tests: every
// session's console, its sends, the server's watch, recheck and runner,
// and the SSH connections end before the test that started them does
// (issue 39 §3: TestHangUpMidSend's TempDir was removed while something
// still wrote in it).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
