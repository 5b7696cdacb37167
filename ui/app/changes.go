package app

import "github.com/smsdesk/smsdesk/config"

// Changes are the kinds of change others made that a face shows: the
// opt-out list, sends and schedules, the rules, messages' delivery, the
// inbox (config.Changes).
type Changes = config.Changes

// WatchChanges is a feed of what others change while a face shows it: the
// opt-out list, sends planned, scheduled, started, ended or cancelled by
// another session, process or host, and the config file's rules. The
// sessions of one engine (a server's) share one watch of the ledger and
// the file (config.Paths.WatchChanges); the feed is the caller's to close.
func (s *Session) WatchChanges() (*config.ChangeFeed, error) { return s.root().Paths.WatchChanges() }
