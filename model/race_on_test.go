//go:build race

package model

// raceEnabled reports whether the tests run under the race detector, which
// slows code several times over; timing budgets widen accordingly.
const raceEnabled = true
