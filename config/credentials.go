package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/BurntSushi/toml"
)

// credentialsFile is the plain-text store chosen with --insecure-storage:
//
//	[profiles.default]
//	api_key = "sk_live_…"
//	webhook_secret = "…"     # smsdesk webhook secret set --insecure-storage
type credentialsFile struct {
	Profiles map[string]credential `toml:"profiles"`
}

type credential struct {
	APIKey        string `toml:"api_key,omitempty"`
	WebhookSecret string `toml:"webhook_secret,omitempty"`
}

const credentialsHeader = "# smsdesk API keys in PLAIN TEXT, written by `smsdesk login --insecure-storage`.\n# Anyone who can read this file can spend the accounts' credit. Keep it 0600.\n\n"

// readCredentials returns the file's entries; no file means none. Errors never
// quote the file's content, which holds keys.
func readCredentials(path string) (map[string]credential, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]credential{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading credentials file %s: %w", path, err)
	}
	var f credentialsFile
	if _, err := toml.Decode(string(data), &f); err != nil {
		fe := &FileError{Path: path, Problem: "not valid TOML",
			Recovery: "fix it, or move it aside and run `smsdesk login --insecure-storage` again"}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			fe.Line = pe.Position.Line
		}
		return nil, fe // the parser's message may quote a key: not kept
	}
	if f.Profiles == nil {
		f.Profiles = map[string]credential{}
	}
	return f.Profiles, nil
}

// updateCredentials runs a locked read-modify-write of the credentials file. An
// empty result removes the file.
func updateCredentials(path string, modify func(map[string]credential) bool) error {
	if err := os.MkdirAll(dirOf(path), 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dirOf(path), err)
	}
	unlock, err := lockFile(path)
	if err != nil {
		return err
	}
	defer unlock()
	creds, err := readCredentials(path)
	if err != nil {
		return err
	}
	if !modify(creds) {
		return nil
	}
	if len(creds) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing %s: %w", path, err)
		}
		return nil
	}
	var buf bytes.Buffer
	buf.WriteString(credentialsHeader)
	if err := toml.NewEncoder(&buf).Encode(credentialsFile{Profiles: creds}); err != nil {
		return fmt.Errorf("encoding credentials file %s", path) // the encoder's error could quote a key
	}
	return WriteFileAtomic(path, buf.Bytes(), 0o600)
}
