package cli

// flagRule is one combination of a command's flags that it refuses, with
// what it says: a command's flag checks that form a table are one (its
// validate runs checkFlags over it), not a switch of as many cases.
type flagRule[O any] struct {
	refuses func(o *O) bool
	// says is the usage error, a format for args (nil: none).
	says string
	args func(o *O) []any
}

// checkFlags is the usage error (exit 2) of the first rule o meets, in
// order; nil when it meets none.
func checkFlags[O any](o *O, rules []flagRule[O]) error {
	for _, r := range rules {
		if !r.refuses(o) {
			continue
		}
		var args []any
		if r.args != nil {
			args = r.args(o)
		}
		return usageError(r.says, args...)
	}
	return nil
}
