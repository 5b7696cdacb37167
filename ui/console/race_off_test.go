//go:build !race

package console

import "time"

// waitLimit is how long a test waits for the console to reach a state.
const waitLimit = 10 * time.Second
