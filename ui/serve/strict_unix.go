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
