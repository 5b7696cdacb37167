package config

// The operators of a served console (smsdesk serve): a name, an SSH public
// key and a role each, kept in the config directory, 0600:
//
//	[operators.sara]
//	key = "ssh-ed25519 AAAA… sara@laptop"
//	role = "sender"
//	added = 2026-11-25T08:00:00Z
//
// It holds public keys only; the API key never goes here.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	gossh "golang.org/x/crypto/ssh"

	"github.com/smsdesk/smsdesk/model"
)

// OperatorsFileName is the operators file's name in the config directory.
const OperatorsFileName = "operators.toml"

// OperatorsFile is where the operators are kept.
func (p Paths) OperatorsFile() string { return filepath.Join(p.ConfigDir, OperatorsFileName) }

// OperatorEntry is one operator as stored.
type OperatorEntry struct {
	Name string `toml:"-"`
	// Key is the public key in authorized_keys form ("ssh-ed25519 AAAA… comment").
	Key   string     `toml:"key"`
	Role  model.Role `toml:"role"`
	Added time.Time  `toml:"added"`
}

// Fingerprint is the key's SHA-256 fingerprint ("SHA256:…"), or "" when
// the key does not read.
func (e OperatorEntry) Fingerprint() string {
	k, _, err := ParsePublicKey(e.Key)
	if err != nil {
		return ""
	}
	return gossh.FingerprintSHA256(k)
}

// Comment is the key's comment (sanitised), "" when it has none.
func (e OperatorEntry) Comment() string {
	_, c, _ := ParsePublicKey(e.Key)
	return c
}

// Operator is the entry as the application layer knows an operator.
func (e OperatorEntry) Operator() model.Operator {
	return model.Operator{Name: e.Name, Fingerprint: e.Fingerprint(), Role: e.Role}
}

type operatorsFile struct {
	Operators map[string]OperatorEntry `toml:"operators"`
}

const operatorsHeader = "# smsdesk serve: who may sign in over SSH, with which public key and role.\n# Written by `smsdesk operators add|remove`. Public keys only.\n\n"

// ParsePublicKey reads one public key in authorized_keys form (options
// before the key type are refused: this file names keys, not policies). The
// comment comes back sanitised.
func ParsePublicKey(line string) (gossh.PublicKey, string, error) {
	line = strings.TrimSpace(line)
	if line == "" {
		return nil, "", errors.New("no public key given: pass --key \"ssh-ed25519 AAAA… comment\" or --key-file ~/.ssh/id_ed25519.pub")
	}
	if strings.Contains(line, "PRIVATE KEY") {
		return nil, "", errors.New("that is a private key: give the public one (the .pub file), and keep the private key where it is")
	}
	k, comment, opts, rest, err := gossh.ParseAuthorizedKey([]byte(line))
	if err != nil {
		return nil, "", errors.New("not an SSH public key: give one line as in ~/.ssh/id_ed25519.pub (\"ssh-ed25519 AAAA… comment\")")
	}
	if len(opts) > 0 {
		return nil, "", errors.New("authorized_keys options are not read here: give the key alone (\"ssh-ed25519 AAAA… comment\")")
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return nil, "", errors.New("more than one key given: add one key per operator")
	}
	return k, model.SanitizeLine(comment), nil
}

// ReadOperators lists the operators by name; no file means none.
func ReadOperators(p Paths) ([]OperatorEntry, error) {
	m, err := readOperators(p.OperatorsFile())
	if err != nil {
		return nil, err
	}
	out := make([]OperatorEntry, 0, len(m))
	for name, e := range m {
		e.Name = name
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b OperatorEntry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func readOperators(path string) (map[string]OperatorEntry, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]OperatorEntry{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading operators file %s: %w", path, err)
	}
	// Whoever can write the file can let their own key in.
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o022 != 0 {
		return nil, &FileError{Path: path, Problem: fmt.Sprintf("writable by others (mode %v): anyone who can write it can add their key", fi.Mode().Perm()),
			Recovery: "chmod 600 " + path + ", and check who is in it (smsdesk operators list)"}
	}
	var f operatorsFile
	if _, err := toml.Decode(string(data), &f); err != nil {
		fe := &FileError{Path: path, Problem: "not valid TOML", Recovery: "fix it, or move it aside and add the operators again (smsdesk operators add)"}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			fe.Line = pe.Position.Line
		}
		return nil, fe
	}
	if f.Operators == nil {
		f.Operators = map[string]OperatorEntry{}
	}
	return f.Operators, nil
}

// ErrOperatorExists: an operator of that name, or with that key, is there already.
var ErrOperatorExists = errors.New("operator exists")

// ErrNoSuchOperator: no operator of that name.
var ErrNoSuchOperator = errors.New("no such operator")

// AddOperator stores a new operator. The name must be free and the key
// not another operator's (one key is one person: a shared key would make
// every journal's "who" a guess).
func AddOperator(p Paths, e OperatorEntry) (OperatorEntry, error) {
	if err := model.CheckOperatorName(e.Name); err != nil {
		return e, err
	}
	if _, err := model.ParseRole(string(e.Role)); err != nil {
		return e, err
	}
	k, _, err := ParsePublicKey(e.Key)
	if err != nil {
		return e, err
	}
	e.Key = strings.TrimSpace(e.Key)
	fp := gossh.FingerprintSHA256(k)
	err = updateOperators(p.OperatorsFile(), func(m map[string]OperatorEntry) error {
		if _, ok := m[e.Name]; ok {
			return fmt.Errorf("%w: %s (another role: smsdesk operators role %s ROLE; another key: smsdesk operators remove %s first)", ErrOperatorExists, e.Name, e.Name, e.Name)
		}
		for name, o := range m {
			o.Name = name
			if o.Fingerprint() == fp {
				return fmt.Errorf("%w: that key (%s) is %s's; each operator signs in with their own key", ErrOperatorExists, fp, name)
			}
		}
		m[e.Name] = e
		return nil
	})
	return e, err
}

// SetOperatorRole gives an operator another role, their key and name
// unchanged (a running smsdesk serve applies it to their next action).
func SetOperatorRole(p Paths, name string, role model.Role) error {
	if _, err := model.ParseRole(string(role)); err != nil {
		return err
	}
	return updateOperators(p.OperatorsFile(), func(m map[string]OperatorEntry) error {
		e, ok := m[name]
		if !ok {
			return fmt.Errorf("%w: %q (smsdesk operators list shows who there is)", ErrNoSuchOperator, model.SanitizeLine(name))
		}
		e.Role = role
		m[name] = e
		return nil
	})
}

// RemoveOperator forgets an operator: their key no longer signs in, and a
// running smsdesk serve closes their open sessions.
func RemoveOperator(p Paths, name string) error {
	return updateOperators(p.OperatorsFile(), func(m map[string]OperatorEntry) error {
		if _, ok := m[name]; !ok {
			return fmt.Errorf("%w: %q (smsdesk operators list shows who there is)", ErrNoSuchOperator, model.SanitizeLine(name))
		}
		delete(m, name)
		return nil
	})
}

// updateOperators runs a locked read-modify-write of the operators file,
// written 0600 whatever umask says.
func updateOperators(path string, modify func(map[string]OperatorEntry) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	return underLock(path, func() error {
		m, err := readOperators(path)
		if err != nil {
			return err
		}
		if err := modify(m); err != nil {
			return err
		}
		var buf bytes.Buffer
		buf.WriteString(operatorsHeader)
		if err := toml.NewEncoder(&buf).Encode(operatorsFile{Operators: m}); err != nil {
			return fmt.Errorf("writing operators file: %w", err)
		}
		return WriteFileAtomic(path, buf.Bytes(), 0o600)
	})
}

// FindOperator is the operator whose key is k, if any: how a served console
// knows who signed in.
func FindOperator(list []OperatorEntry, k gossh.PublicKey) (OperatorEntry, bool) {
	want := k.Marshal()
	for _, e := range list {
		ek, _, err := ParsePublicKey(e.Key)
		if err == nil && bytes.Equal(ek.Marshal(), want) {
			return e, true
		}
	}
	return OperatorEntry{}, false
}
