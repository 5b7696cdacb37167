//go:build race

package cli

// raceEnabled is true when the tests run under the race detector, whose
// shadow memory is in a process's RSS.
const raceEnabled = true
