//go:build !unix

package serve

import (
	"fmt"
	"os"
)

// checkOwned checks that path is writable by nobody else, as far as its
// mode says (owners are not checked here).
func checkOwned(what, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	return checkInfo(what, path, fi)
}

// checkInfo checks that fi's mode lets nobody else write.
func checkInfo(what, path string, fi os.FileInfo) error { return checkMode(what, path, fi.Mode()) }

// ownedByRoot: owners are not known here.
func ownedByRoot(os.FileInfo) bool { return false }
