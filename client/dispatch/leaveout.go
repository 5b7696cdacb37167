package dispatch

import (
	"context"
	"fmt"
	"slices"

	"github.com/smsdesk/smsdesk/model"
)

// leaveOut asks Options.LeaveOut about the next chunk's items (plan
// indexes idx) and journals those it names as opted out, before the
// chunk's intent: a number that opted out by reply while the send ran is
// not sent from its next chunk on. It returns the indexes that still go;
// stop when the list could not be read (the run stops, the rest not
// sent); err when the record could not be written (nothing more goes).
func (r *Run) leaveOut(ctx context.Context, idx []int) (kept []int, stop bool, err error) {
	if r.opts.LeaveOut == nil {
		return idx, false, nil
	}
	out, lerr := r.opts.LeaveOut(ctx, r.job.Sender, r.itemsAt(idx))
	if lerr != nil {
		if ctx.Err() != nil {
			return nil, true, nil // stopped meanwhile: the rest stays not sent
		}
		r.stopped, r.cause = fmt.Sprintf("the opt-out list could not be read before the next chunk (%v); the rest was not sent", lerr), StopLedger
		return nil, true, nil
	}
	leave := make([]int, 0, len(out))
	for _, i := range idx {
		if slices.Contains(out, i) {
			leave = append(leave, i)
		} else {
			kept = append(kept, i)
		}
	}
	if len(leave) == 0 {
		return idx, false, nil
	}
	if err := r.record(&model.JournalOptedOut{Time: r.opts.Now(), Indexes: leave}, true); err != nil {
		return nil, false, err
	}
	res := make([]model.JournalResult, len(leave))
	for k, i := range leave {
		res[k] = model.JournalResult{Index: i, State: model.StateOptedOut}
	}
	r.apply(0, res, "")
	return kept, false, nil
}
