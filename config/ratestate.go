package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// RateState is the request budget of one key at one service, kept in a
// small file in the state directory (StateDir/rate/<hash>.json, 0600) under
// a lock, so that every smsdesk process on that key (the console and a CLI
// job, two cron jobs) draws on one budget and together stays under the
// service's limit. The file is named by a hash of the base URL and the key:
// the key itself is never written. It satisfies client.RateStore.
type RateState struct {
	path string
}

// NewRateState returns the shared budget of key at baseURL.
func NewRateState(p Paths, baseURL, key string) *RateState {
	sum := sha256.Sum256([]byte(baseURL + "\x00" + key))
	return &RateState{path: filepath.Join(p.StateDir, "rate", hex.EncodeToString(sum[:12])+".json")}
}

// Path is the state file's path.
func (r *RateState) Path() string { return r.path }

// Load returns the state's bytes, nil when there are none yet.
func (r *RateState) Load() ([]byte, error) {
	b, err := os.ReadFile(r.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// Update locks the state, hands its bytes to f and stores what f returns.
// The write is a rename without fsync: the budget is advisory, and a crash
// that loses the last few requests' count costs at most one 429.
func (r *RateState) Update(f func(old []byte) ([]byte, error)) error {
	if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
		return fmt.Errorf("rate state: %w", err)
	}
	unlock, err := lockFile(r.path)
	if err != nil {
		return err
	}
	defer unlock()
	old, err := r.Load()
	if err != nil {
		return fmt.Errorf("rate state: %w", err)
	}
	b, err := f(old)
	if err != nil {
		return err
	}
	tmp := r.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("rate state: %w", err)
	}
	if err := os.Rename(tmp, r.path); err != nil {
		_ = os.Remove(tmp) // a leftover is harmless: the error above is the one to report
		return fmt.Errorf("rate state: %w", err)
	}
	return nil
}
