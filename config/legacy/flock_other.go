//go:build !unix && !windows

package legacy

import "os"

// flock: where neither flock nor LockFileEx is available, the file store
// kept no locks either.
func flock(*os.File) (held bool, err error) { return false, nil }

const renameLocked = true
