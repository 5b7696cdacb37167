//go:build !unix && !windows

package config

import "os"

// flockExclusive is a no-op where neither flock nor LockFileEx is available
// (plan9, wasm; not among the release targets): two processes resuming the
// same send, or updating the same state file, at once are not kept apart
// there.
func flockExclusive(f *os.File) (func(), error) { return func() {}, nil }

// lockHeld: no lock is ever held here.
func lockHeld(error) bool { return false }
