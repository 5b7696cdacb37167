package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// reply is an sms.inbound event: from wrote text to line.
func reply(id, from, line, text string, at time.Time) Event {
	e := ev(id, EventInbound, "", at)
	e.Inbound = &Inbound{Sender: from, Line: line, Message: text}
	return e
}

// entriesOf are the opt-out list's entries of mobile as "line source message_id".
func entriesOf(t *testing.T, l *Ledger, mobile string) []string {
	t.Helper()
	got, err := l.LookupOptOuts(context.Background(), []string{mobile})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range got {
		out = append(out, fmt.Sprintf("%s %s %s", o.Sender, o.Source, o.MessageID))
	}
	return out
}

// TestRepliesOptOutOfThatLine (issue 42 §5): «۱۱» in seven spellings puts
// each number that wrote on the list of the line it wrote to (source
// reply, with the message's id, audited), and only that line's; «۱۲» takes
// back a reply's entry and never an operator's or an import's; an operator
// who adds a number a reply put there makes the entry theirs; any other
// reply, or «۱۱» again, changes nothing.
func TestRepliesOptOutOfThatLine(t *testing.T) {
	ctx := context.Background()
	spellings := []string{"11", "۱۱", "١١", "لغو", "لغو۱۱", "ل\u200cغو ١١", "\u200f ۱۱ ."}
	each(t, func(t *testing.T, l *Ledger, loc string) {
		at := t0
		next := func() time.Time { at = at.Add(time.Minute); return at }
		for i, text := range spellings {
			from := fmt.Sprintf("0912000010%d", i)
			res := record(t, l, reply(fmt.Sprintf("in%d", i), from, "3000", text, next()))
			if res[0].Inbox == 0 {
				t.Fatalf("%q: not filed: %+v", text, res)
			}
			if got := entriesOf(t, l, from); len(got) != 1 || got[0] != fmt.Sprintf("3000 reply in%d", i) {
				t.Errorf("«%s»: entries %v, want the line 3000's, by reply in%d", text, got, i)
			}
		}
		// Only that line: a plan from 4000 to the first number finds no entry for it.
		list := mustList(t, l, "09120000100")
		if _, other := list.Blocks("09120000100", "4000"); other {
			t.Errorf("the reply to 3000 holds for 4000")
		}
		if _, this := list.Blocks("09120000100", "3000"); !this {
			t.Errorf("the reply to 3000 does not hold for 3000")
		}

		// «۱۱» again, and a question: nothing changes.
		res := record(t, l, reply("again", "09120000100", "3000", "۱۱", next()), reply("q", "09120000100", "3000", "ساعت ۱۱ میام", next()))
		box := inboxByID(t, l)
		if box["in0"] != "opted_out" || box["again"] != "" || box["q"] != "" || res[1].Inbox == 0 {
			t.Errorf("actions %v", box)
		}

		// «۱۲» takes back the reply's entry.
		record(t, l, reply("back", "09120000101", "3000", "١٢", next()))
		if got := entriesOf(t, l, "09120000101"); len(got) != 0 || inboxByID(t, l)["back"] != "opted_in" {
			t.Errorf("after «۱۲»: entries %v, action %q", got, inboxByID(t, l)["back"])
		}

		// An operator's and an import's entries stay.
		if _, err := l.AddOptOuts(ctx, []model.OptOut{
			{Mobile: "09120000200", Sender: "3000", Added: t0, Note: "asked by phone"},
			{Mobile: "09120000201", Sender: "3000", Added: t0, Source: model.OptOutImport},
		}); err != nil {
			t.Fatal(err)
		}
		record(t, l, reply("b1", "09120000200", "3000", "12", next()), reply("b2", "09120000201", "3000", "۱۲", next()))
		if a, b := entriesOf(t, l, "09120000200"), entriesOf(t, l, "09120000201"); len(a) != 1 || len(b) != 1 {
			t.Errorf("«۱۲» took back an operator's (%v) or an import's (%v) entry", a, b)
		}

		// A reply's entry the operator adds again is the operator's: «۱۲» leaves it.
		ch, err := l.AddOptOuts(ctx, []model.OptOut{{Mobile: "09120000102", Sender: "3000", Added: next(), Note: "keep"}})
		if err != nil || len(ch.Changed) != 1 {
			t.Fatalf("the operator's add over a reply's: %+v %v", ch, err)
		}
		if got := entriesOf(t, l, "09120000102"); len(got) != 1 || got[0] != "3000 operator " {
			t.Errorf("after the operator's add: %v", got)
		}
		record(t, l, reply("b3", "09120000102", "3000", "12", next()))
		if got := entriesOf(t, l, "09120000102"); len(got) != 1 {
			t.Errorf("«۱۲» took back an entry the operator made theirs: %v", got)
		}

		// Audited with the message id.
		trail, err := l.ListAudit(ctx, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]bool{}
		for _, e := range trail {
			var r struct {
				Action, Mobile, Sender string
				MessageID              string `json:"message_id"`
			}
			if err := json.Unmarshal(e.Body, &r); err != nil {
				t.Fatal(err)
			}
			found[r.Action+" "+r.Mobile+" "+r.Sender+" "+r.MessageID] = true
		}
		for _, want := range []string{"optout_reply 09120000100 3000 in0", "optin_reply 09120000101 3000 back"} {
			if !found[want] {
				t.Errorf("the audit trail lacks %q: %v", want, found)
			}
		}
	})
}

func inboxByID(t *testing.T, l *Ledger) map[string]string {
	t.Helper()
	box, err := l.InboxMessages(context.Background(), "acct1", 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range box {
		out[m.MessageID] = m.Action
	}
	return out
}

func mustList(t *testing.T, l *Ledger, mobiles ...string) *model.OptOutList {
	t.Helper()
	got, err := l.LookupOptOuts(context.Background(), mobiles)
	if err != nil {
		t.Fatal(err)
	}
	return model.NewOptOutList(got)
}
