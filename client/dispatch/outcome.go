package dispatch

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/model"
)

// verdictKind is what the engine does after a chunk's request.
type verdictKind int

const (
	verdictDone  verdictKind = iota // every item has a verdict
	verdictRetry                    // certainly not taken: send the same chunk again
	verdictSplit                    // too many items: send them again in smaller chunks
	verdictHeld                     // not written: quiet hours began while it waited (client.SendBy)
)

// verdict is a chunk request's outcome, mapped to its items.
type verdict struct {
	kind       verdictKind
	results    []model.JournalResult // one per item of the chunk, in chunk order
	batchID    string
	status     int
	code, err  string
	retryAfter time.Duration
	// stop is set when the refusal will repeat for every later chunk (the key,
	// the account's credit, the sender line): the run stops after this chunk.
	stop StopCause
}

// classify maps a SendPair answer to per-item verdicts. It is the one place
// that decides what may go again: only answers that certainly took nothing
// (client.ErrNotSent, 413, too_many_items) lead to another request.
func classify(items []model.JournalItem, res client.SendPairResult, err error) verdict {
	if err == nil {
		return fromResponse(items, res)
	}
	var apiErr *client.APIError
	hasAPI := errors.As(err, &apiErr)
	v := verdict{err: err.Error()}
	if hasAPI {
		v.status, v.code, v.retryAfter = apiErr.Status, apiErr.Code, apiErr.RetryAfter
		v.err = apiErr.Error()
	}
	switch {
	case errors.Is(err, client.ErrOutcomeUnknown):
		v.err = "outcome unknown: " + err.Error()
		return v.all(items, model.StateUnknown)
	case hasAPI && tooMany(apiErr) && len(items) > 1:
		v.kind = verdictSplit
		return v.all(items, model.StateQueued)
	case errors.Is(err, client.ErrPastSendBy):
		v.kind = verdictHeld
		return v.all(items, model.StateQueued)
	case errors.Is(err, client.ErrNotSent):
		v.kind = verdictRetry
		return v.all(items, model.StateQueued)
	case hasAPI && isRefusal(apiErr):
		// A refusal ({"success":false,…} in a 2xx too; a provider_error,
		// documented as temporary, may have gone part way and is not one).
		// One that will repeat for every chunk (credit, key, sender, the
		// account) took nothing from anyone in it: those items are "not sent",
		// with the reason, and a resume after the fix sends them. Any other is
		// the service's verdict on these items.
		if v.stop = stopCause(apiErr); v.stop != "" {
			return v.all(items, model.StateQueued)
		}
		return v.all(items, model.StateRejected)
	}
	// Anything else may have reached the service: never guess "not sent".
	v.err = "outcome unknown: " + err.Error()
	return v.all(items, model.StateUnknown)
}

// isRefusal reports whether an error answer is the service refusing: a 4xx,
// or {"success":false,…} in a 2xx that is not a provider_error.
func isRefusal(e *client.APIError) bool {
	return e.Status >= 400 && e.Status < 500 ||
		e.Status >= 200 && e.Status < 300 && !strings.EqualFold(e.Code, "provider_error")
}

// StopCause names a refusal that will repeat for every later request of the
// key until someone acts; a send stops at it, the rest "not sent".
type StopCause string

// The causes a send stops for ("" when it did not stop).
const (
	StopCredit  StopCause = "credit"  // 402 insufficient_credit: top up
	StopKey     StopCause = "key"     // 401 unauthorized: the key was revoked or mistyped
	StopSender  StopCause = "sender"  // 403 sender_not_allowed: the line is not this key's
	StopAccount StopCause = "account" // a 403 with a code other than sender_not_allowed: the account is refused
	// StopUnreachable: the service could not be reached within RetryFor (the
	// chunk provably not sent): the rest is not sent.
	StopUnreachable StopCause = "unreachable"
	// StopUnknown: two chunks in a row ended without a certain answer; the
	// service may be down or answering in a shape that cannot be matched.
	StopUnknown StopCause = "unknown"
	// StopQuiet: quiet hours began (Options.Hold); the rest is held, not
	// sent, until they end.
	StopQuiet StopCause = "quiet_hours"
	// StopLedger: a write to the send's journal failed (a full disk, a
	// PostgreSQL gone, the lease lost): the send stopped before its next
	// chunk; its end's Error says why.
	StopLedger StopCause = model.StopLedger
)

// Todo says what the operator must do before resuming a send stopped for c.
func (c StopCause) Todo() string {
	switch c {
	case StopCredit:
		return "top up the account"
	case StopKey:
		return "check the key (smsdesk status; smsdesk login to replace it)"
	case StopSender:
		return "have the sender line enabled for this key on the provider's panel"
	case StopUnreachable:
		return "check that the service is up and the base URL is right (smsdesk status)"
	case StopUnknown:
		return "check the unknown recipients with the provider (smsdesk history show) before anything goes again"
	case StopQuiet:
		return "wait for quiet hours to end"
	case StopLedger:
		return "check the ledger takes writes again (smsdesk ledger status)"
	}
	return "settle it with the provider"
}

// stopCodes are the service's documented codes of refusals that will repeat
// for every later chunk, matched whole: a code that merely contains
// "sender" or "credit" (a sender_credit_note on one chunk) is not one.
var stopCodes = map[string]StopCause{
	"insufficient_credit": StopCredit, // 402
	"unauthorized":        StopKey,    // 401
	"sender_not_allowed":  StopSender, // 403
}

// stopCause classifies a refusal: a documented code that will repeat for
// every chunk (stopCodes), else the HTTP status as the rest of the client
// reads it: 401 the key, 402 the credit, 403 the account (a code it does not
// know is shown as the service sent it, in the chunk's error); "" for a
// refusal of this chunk only (invalid_recipient, message_too_long, any other
// 4xx, a success:false in a 2xx with a code not documented as a stop).
func stopCause(e *client.APIError) StopCause {
	if c, ok := stopCodes[strings.ToLower(e.Code)]; ok {
		return c
	}
	switch e.Status {
	case http.StatusPaymentRequired:
		return StopCredit
	case http.StatusUnauthorized:
		return StopKey
	case http.StatusForbidden:
		return StopAccount
	}
	return ""
}

// tooMany reports a 413 or a too-many-items validation answer.
func tooMany(e *client.APIError) bool {
	if e.Status == http.StatusRequestEntityTooLarge {
		return true
	}
	code := strings.ToLower(e.Code)
	return e.Status == http.StatusUnprocessableEntity && (code == "too_many_items" || code == "too_many_recipients")
}

// all gives every item of the chunk the same state and the chunk's error.
func (v verdict) all(items []model.JournalItem, st model.ItemState) verdict {
	v.results = make([]model.JournalResult, len(items))
	for i, it := range items {
		v.results[i] = model.JournalResult{Index: it.Index, State: st, Code: v.code, Error: v.err}
	}
	return v
}

// fromResponse matches the service's per-item answers to the chunk's items, by
// position when the answer gives one, else by recipient. Without per-item
// answers the whole chunk was accepted under the batch id; an item the answer
// does not mention is unknown.
func fromResponse(items []model.JournalItem, res client.SendPairResult) verdict {
	v := verdict{batchID: res.BatchID, results: make([]model.JournalResult, len(items))}
	if len(res.Items) == 0 {
		return wholeChunk(items, res)
	}
	assigned := make([]bool, len(items))
	set := func(i int, r client.ItemResult) {
		assigned[i] = true
		v.results[i] = itemResult(items[i], r)
	}
	var byRecipient []client.ItemResult
	for _, r := range res.Items {
		if r.Index >= 0 && r.Index < len(items) && !assigned[r.Index] &&
			(r.Recipient == "" || sameNumber(r.Recipient, items[r.Index].Recipient)) {
			set(r.Index, r)
			continue
		}
		byRecipient = append(byRecipient, r)
	}
	for _, r := range byRecipient {
		for i := range items {
			if !assigned[i] && r.Recipient != "" && sameNumber(r.Recipient, items[i].Recipient) {
				set(i, r)
				break
			}
		}
	}
	for i, it := range items {
		if !assigned[i] {
			v.results[i] = model.JournalResult{Index: it.Index, State: model.StateUnknown,
				Error: "the service's answer did not mention this recipient"}
		}
	}
	return v
}

// wholeChunk is the verdict on an answer without per-item results: the whole
// chunk accepted under the batch id, or unknown when the answer was unreadable.
func wholeChunk(items []model.JournalItem, res client.SendPairResult) verdict {
	v := verdict{batchID: res.BatchID, results: make([]model.JournalResult, len(items))}
	st, errText := model.StateAccepted, ""
	if res.Unreadable {
		// The service said something the client could not read: accepting
		// the chunk could hide rejections, and sending it again could send
		// twice. Only the operator can tell.
		st, errText = model.StateUnknown, "the service's answer cannot be matched to its items for certain; check before sending again"
	}
	for i, it := range items {
		v.results[i] = model.JournalResult{Index: it.Index, State: st, Error: errText}
	}
	return v
}

// itemResult is the journal's result for one item from its per-item answer.
func itemResult(it model.JournalItem, r client.ItemResult) model.JournalResult {
	st, errText := model.StateUnknown, r.Error
	switch r.Status {
	case client.ItemAccepted:
		st = model.StateAccepted
	case client.ItemRejected:
		st = model.StateRejected
	default:
		errText = "the service answered status " + string(r.Status)
	}
	return model.JournalResult{Index: it.Index, State: st, MessageID: r.MessageID, Code: r.Code, Error: errText}
}

// sameNumber compares two spellings of a mobile number.
func sameNumber(a, b string) bool {
	if a == b {
		return true
	}
	na, errA := model.NormalizeMobile(a, model.FormatE164)
	nb, errB := model.NormalizeMobile(b, model.FormatE164)
	return errA == nil && errB == nil && na == nb
}

// stillUnknown is the verdict on an unknown chunk sent again as it first
// went: an item this attempt certainly did not take (not sent, failed, a
// 413 that would split the chunk) stays unknown, since its first try may
// have gone; the service's accepted and rejected stand. A split becomes a
// verdict: the chunk cannot go again as it went, and smaller chunks would
// go under new keys.
func (v verdict) stillUnknown(items []model.JournalItem) verdict {
	if v.kind == verdictSplit {
		v.kind = verdictDone
		v.err = fmt.Sprintf("not sent again: the service now refuses a request of %d items (%s), so the chunk cannot go again as it first went; the outcome of its first try stays unknown", len(items), v.err)
		return v.all(items, model.StateUnknown)
	}
	res := make([]model.JournalResult, len(v.results))
	for i, r := range v.results {
		if r.State == model.StateQueued || r.State == model.StateFailed {
			r.State = model.StateUnknown
			r.Error = strings.TrimSpace(r.Error + "; not taken this time, and its first try's outcome is still unknown")
			r.Error = strings.TrimPrefix(r.Error, "; ")
		}
		res[i] = r
	}
	v.results = res
	return v
}
