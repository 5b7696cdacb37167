//go:build unix

package serve

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// checkOwned checks that path (a file or directory) is owned by the user
// serving, or root, and writable by nobody else.
func checkOwned(what, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	return checkInfo(what, path, fi)
}

// checkInfo checks that the file or directory at path, whose fi it is, is
// owned by the user serving, or root, and writable by nobody else.
func checkInfo(what, path string, fi os.FileInfo) error {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		me := uint32(os.Getuid())
		if st.Uid != me && st.Uid != 0 {
			return &UntrustedFileError{What: what, Path: path,
				Problem: fmt.Sprintf("is owned by %s, not by %s who serves", userName(st.Uid), userName(me)),
				Fix:     fmt.Sprintf("chown %s %s (or serve as its owner)", loginOf(me), path)}
		}
	}
	return checkMode(what, path, fi.Mode())
}

// ownedByRoot says whether fi is root's.
func ownedByRoot(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Uid == 0
}

// loginOf is uid's login name, or the number when it has none.
func loginOf(uid uint32) string {
	id := strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(id); err == nil && u.Username != "" {
		return u.Username
	}
	return id
}

// userName is "uid 1000 (sara)", or "uid 1000" when it has no name.
func userName(uid uint32) string {
	id := strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(id); err == nil && u.Username != "" {
		return "uid " + id + " (" + u.Username + ")"
	}
	return "uid " + id
}
