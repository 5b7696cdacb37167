//go:build !race

package dispatch_test

// raceEnabled is true when the tests run under the race detector, which slows
// everything unevenly: timing bounds are not checked then.
const raceEnabled = false
