package app

import "context"

// afterStop is the context of what a flow writes or reads about what it
// has done once its caller's context may have ended: the audit record of
// a change the service made, a once-only id taken back, a send read back
// after its run stopped. It keeps ctx's values, not its end: a stop
// (ctrl+c, SIGTERM, a hang-up) must not lose the record of what was done
// before it. The caller calls done when the write is over.
func afterStop(ctx context.Context) (c context.Context, done context.CancelFunc) {
	return context.WithCancel(context.WithoutCancel(ctx))
}
