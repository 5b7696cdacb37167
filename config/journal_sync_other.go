//go:build !linux

package config

import "os"

// datasync makes f's written data durable (fsync; fdatasync is Linux's).
func datasync(f *os.File) error { return f.Sync() }
