// Package app holds the operator's flows once, as plain Go: open a session,
// gather the send facts and check a plan, start a send, prepare and run a
// resume, import contacts, read the history. The command line (ui/cli) and
// the console (ui/console) only ask questions and format answers; every
// refusal comes from here, so both faces refuse for the same reason in the
// same words (soft-serve's pkg/backend under its SSH commands and its UI).
//
// Nothing here draws or parses flags: no bubbletea, no cobra.
package app
