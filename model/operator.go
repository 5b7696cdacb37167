package model

import (
	"fmt"
	"strings"
	"unicode"
)

// Role is what an operator of a served console may do. Each role may do what
// the roles below it may: a viewer browses groups, contacts and history; a
// sender also adds and imports contacts and sends; an admin also creates
// groups and deletes contacts.
type Role string

// The roles, weakest first.
const (
	RoleViewer Role = "viewer"
	RoleSender Role = "sender"
	RoleAdmin  Role = "admin"
)

// Roles are the roles, weakest first.
var Roles = []Role{RoleViewer, RoleSender, RoleAdmin}

// rank orders the roles; 0 is not a role.
func (r Role) rank() int {
	switch r {
	case RoleViewer:
		return 1
	case RoleSender:
		return 2
	case RoleAdmin:
		return 3
	}
	return 0
}

// Allows reports whether an operator with role r may do what needs role need.
func (r Role) Allows(need Role) bool { return r.rank() > 0 && r.rank() >= need.rank() }

// ParseRole reads a role name (viewer, sender or admin).
func ParseRole(s string) (Role, error) {
	r := Role(strings.ToLower(strings.TrimSpace(s)))
	if r.rank() == 0 {
		return "", fmt.Errorf("role %q: choose viewer, sender or admin", SanitizeLine(s))
	}
	return r, nil
}

// Operator is a person signed in to a served console (smsdesk serve) with
// their own SSH key: who a journal, an import or a deletion was done by.
type Operator struct {
	Name string `json:"name"`
	// Fingerprint is the SSH key's SHA-256 fingerprint ("SHA256:…"), as
	// ssh-keygen -lf prints it.
	Fingerprint string `json:"fingerprint"`
	Role        Role   `json:"role,omitempty"`
}

// String is "name (SHA256:…)" for logs and messages.
func (o Operator) String() string {
	return fmt.Sprintf("%s (%s)", SanitizeLine(o.Name), SanitizeLine(o.Fingerprint))
}

// CheckOperatorName refuses a name that cannot be an SSH user name or a
// log field: empty, longer than 32 characters, or anything but letters,
// digits, '.', '_' and '-' (starting with a letter or digit).
func CheckOperatorName(name string) error {
	if name == "" {
		return fmt.Errorf("an operator needs a name")
	}
	if len(name) > 32 {
		return fmt.Errorf("operator name %q is longer than 32 characters", SanitizeLine(name))
	}
	for i, c := range name {
		ok := c < unicode.MaxASCII && (unicode.IsLetter(c) || unicode.IsDigit(c) || (i > 0 && strings.ContainsRune("._-", c)))
		if !ok {
			return fmt.Errorf("operator name %q: use letters, digits, '.', '_' and '-' (the name is the SSH user name: ssh NAME@host)", SanitizeLine(name))
		}
	}
	return nil
}
