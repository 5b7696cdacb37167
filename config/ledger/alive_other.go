//go:build !unix

package ledger

// processAlive cannot tell here: a lease lasts until its time.
func processAlive(int) bool { return true }
