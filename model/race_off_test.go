//go:build !race

package model

// raceEnabled reports whether the tests run under the race detector, which
// slows code several times over and adds allocations of its own.
const raceEnabled = false
