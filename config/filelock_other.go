//go:build !unix && !windows

package config

import "os"

// flockExclusive is a no-op where neither flock nor LockFileEx is available (plan9, wasm): two processes
// resuming the same send at once are not prevented there.
func flockExclusive(f *os.File) (func(), error) { return func() {}, nil }

// flockBusy cannot tell where flock is not available.
func flockBusy(f *os.File) bool { return false }
