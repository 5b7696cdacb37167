package serve

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"
)

// HostKeyFileName is the server's host key in the state directory.
const HostKeyFileName = "ssh_host_ed25519_key"

// LoadHostKey reads the server's host key at path, generating it (ed25519,
// 0600) the first time. created says it was made now. A key others may read
// is refused, as sshd refuses one: whoever reads it can pose as this server;
// so is one that CheckTrusted does not pass (another's, in a directory
// others may write, a symlink out of its directory).
func LoadHostKey(path string) (signer gossh.Signer, created bool, err error) {
	if err := CheckTrusted("host key", path); err != nil {
		return nil, false, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		data, err = newHostKey(path)
		created = true
	}
	if err != nil {
		return nil, false, fmt.Errorf("host key %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		return nil, false, fmt.Errorf("host key %s is readable by others (mode %v): chmod 600 it, or remove it to make a new one (operators will then see a new fingerprint)", path, fi.Mode().Perm())
	}
	signer, err = gossh.ParsePrivateKey(data)
	if err != nil {
		return nil, false, fmt.Errorf("host key %s does not read: %w (remove it to make a new one)", path, err)
	}
	return signer, created, nil
}

func newHostKey(path string) ([]byte, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	block, err := gossh.MarshalPrivateKey(priv, "smsdesk serve host key")
	if err != nil {
		return nil, err
	}
	data := pem.EncodeToMemory(block)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return nil, err
	}
	return data, nil
}
