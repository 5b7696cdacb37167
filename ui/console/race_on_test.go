//go:build race

package console

import "time"

// waitLimit is how long a test waits for the console to reach a state. The
// race detector slows drawing a frame about tenfold (bubbletea v2 draws one
// after every message, and measuring text by grapheme is most of it).
const waitLimit = 40 * time.Second
