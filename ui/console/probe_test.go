package console

// probeMsg runs fn on the live root inside the program's loop (tests only).
type probeMsg struct{ fn func(m *root) }

func (p probeMsg) inspect(m *root) { p.fn(m) }
