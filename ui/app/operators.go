package app

// The operators of smsdesk serve (operators.toml in the config directory):
// who may sign in over SSH, with which public key and role. Managed on the
// server host with smsdesk operators; read by every served session's
// checks (Session.Operators).

import (
	"github.com/smsdesk/smsdesk/config"
	"github.com/smsdesk/smsdesk/model"
)

// ReadOperators lists the operators of paths.
func ReadOperators(paths config.Paths) ([]config.OperatorEntry, error) {
	return config.ReadOperators(paths)
}

// AddOperator lets e sign in (its name and key checked; a name or key
// already there refused).
func AddOperator(paths config.Paths, e config.OperatorEntry) (config.OperatorEntry, error) {
	return config.AddOperator(paths, e)
}

// SetOperatorRole gives operator name another role (config.ErrNoSuchOperator
// when there is none).
func SetOperatorRole(paths config.Paths, name string, role model.Role) error {
	return config.SetOperatorRole(paths, name, role)
}

// RemoveOperator stops operator name signing in; a running server closes
// their sessions.
func RemoveOperator(paths config.Paths, name string) error {
	return config.RemoveOperator(paths, name)
}
