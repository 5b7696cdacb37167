package config

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/model"
)

// writeSend journals a send of n pairs (recipient i gets msg(i)) whose items
// in accepted were accepted at `at`; the others were rejected.
func writeSend(t testing.TB, p Paths, id, profile string, at time.Time, n int, msg func(i int) string, accepted func(i int) bool) {
	t.Helper()
	j, err := CreateJournal(t.Context(), p, id)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	plan := &model.JournalPlan{ID: id, Time: at, Profile: profile, Sender: "3000", Items: make([]model.JournalItem, n)}
	idx := make([]int, n)
	res := make([]model.JournalResult, n)
	for i := range n {
		plan.Items[i] = model.JournalItem{Index: i, Recipient: fmt.Sprintf("0912%07d", i), Message: msg(i), Parts: 1}
		idx[i] = i
		res[i] = model.JournalResult{Index: i, State: model.StateRejected}
		if accepted(i) {
			res[i] = model.JournalResult{Index: i, State: model.StateAccepted, MessageID: fmt.Sprint("m", i)}
		}
	}
	for _, rec := range []model.JournalRecord{
		plan,
		&model.JournalIntent{Time: at, Chunk: 0, Indexes: idx, Key: "k"},
		&model.JournalOutcome{Time: at, Chunk: 0, Results: res},
		&model.JournalEnd{Time: at},
	} {
		if err := j.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
}

func all(int) bool { return true }

func TestRecentPairs(t *testing.T) {
	p := testPaths(t)
	if got, err := RecentPairs(t.Context(), p, RepeatScope{Profile: "default"}, time.Now()); err != nil || got != nil {
		t.Fatalf("no history: %v, %v", got, err)
	}
	now := time.Now().Truncate(time.Second)
	msg := func(i int) string { return fmt.Sprint("code ", i) }
	writeSend(t, p, "a", "default", now.Add(-2*time.Hour), 5, msg, func(i int) bool { return i != 2 })
	writeSend(t, p, "b", "work", now.Add(-time.Hour), 5, msg, all)
	writeSend(t, p, "c", "", now.Add(-time.Hour), 2, msg, all)             // no profile: counted for every profile
	writeSend(t, p, "old", "default", now.Add(-48*time.Hour), 5, msg, all) // before the window

	since := now.Add(-24 * time.Hour)
	got, err := RecentPairs(t.Context(), p, RepeatScope{Profile: "default"}, since)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]model.SentPairs{}
	for _, sp := range got {
		ids[sp.SendID] = sp
	}
	if len(got) != 2 || len(ids["a"].Keys) != 4 || len(ids["c"].Keys) != 2 {
		t.Fatalf("sends %v", ids)
	}
	if ids["a"].At[0] != now.Add(-2*time.Hour).Unix() || ids["a"].Keys[2] != model.PairKey("09120000003", "code 3") {
		t.Errorf("send a: %+v", ids["a"])
	}

	// The second check reads the digests, and finds the same.
	again, err := RecentPairs(t.Context(), p, RepeatScope{Profile: "default"}, since)
	if err != nil || !reflect.DeepEqual(again, got) {
		t.Fatalf("from digests: %+v, %v\nwant %+v", again, err, got)
	}

	// A resume that accepts the rejected item changes the journal: the digest is rebuilt.
	j, err := OpenJournal(t.Context(), p, "a")
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range []model.JournalRecord{
		&model.JournalResume{Time: now, Indexes: []int{2}},
		&model.JournalIntent{Time: now, Chunk: 1, Indexes: []int{2}, Key: "k1"},
		&model.JournalOutcome{Time: now, Chunk: 1, Results: []model.JournalResult{{Index: 2, State: model.StateAccepted}}},
		&model.JournalEnd{Time: now},
	} {
		if err := j.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	got, _ = RecentPairs(t.Context(), p, RepeatScope{Profile: "default"}, since)
	for _, sp := range got {
		if sp.SendID == "a" && (len(sp.Keys) != 5 || sp.At[2] != now.Unix()) {
			t.Errorf("after the resume: %+v", sp)
		}
	}

	// Pairs accepted before the window do not keep a send in it.
	if got, _ := RecentPairs(t.Context(), p, RepeatScope{Profile: "work"}, now.Add(-30*time.Minute)); len(got) != 0 {
		t.Errorf("30 min window: %+v", got)
	}
}

func TestParseWindow(t *testing.T) {
	for in, want := range map[string]time.Duration{"": DefaultRepeatWindow, "0": 0, "off": 0, "24h": 24 * time.Hour, "90m": 90 * time.Minute, "7d": 7 * 24 * time.Hour, " 2H ": 2 * time.Hour} {
		if got, err := ParseWindow(in); err != nil || got != want {
			t.Errorf("ParseWindow(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"-1h", "soon", "xd", "-2d"} {
		if _, err := ParseWindow(in); err == nil {
			t.Errorf("ParseWindow(%q) accepted", in)
		}
	}
	prof := Profile{Name: "x", RepeatWindow: "tomorrow"}
	if err := prof.Validate(); err == nil {
		t.Error("Validate accepted repeat_window = tomorrow")
	}
}

// BenchmarkRepeatCheck is the repeat check a send makes before it asks: the
// accepted pairs of 100 earlier sends of 10,000 pairs each, read from the
// state directory, against a plan of 10,000 pairs. "warm" reads the digests
// (every check after the first); "cold" replays every journal and writes the
// digests (the first check after an upgrade, or after 100 new sends at once).
// The budget: under 200 ms. Figures: BENCHMARKS.md.
func BenchmarkRepeatCheck(b *testing.B) {
	const sends, pairs = 100, 10_000
	p := testPaths(b)
	now := time.Now()
	for s := range sends {
		writeSend(b, p, fmt.Sprintf("send-%03d", s), "default", now.Add(-time.Hour), pairs,
			func(i int) string { return fmt.Sprintf("سلام، کد شما در ارسال %d: %d", s, i) }, all)
	}
	rows := make([]model.PairRow, pairs)
	for i := range rows {
		rows[i] = model.PairRow{Recipient: fmt.Sprintf("0912%07d", i), Message: fmt.Sprintf("سلام، کد شما در ارسال %d: %d", 42, i)}
	}
	plan := model.BuildPlan("3000", rows, model.PlanOptions{})
	since := now.Add(-24 * time.Hour)
	check := func(b *testing.B) {
		hist, err := RecentPairs(b.Context(), p, RepeatScope{Profile: "default"}, since)
		if err != nil {
			b.Fatal(err)
		}
		v := model.CheckSend(plan, model.SendFacts{History: hist, Since: since, Now: now})
		if len(v.Repeats) != 1 || v.Repeats[0].Pairs != pairs {
			b.Fatalf("repeats: %d", len(v.Repeats))
		}
	}
	b.Run("warm", func(b *testing.B) {
		check(b)
		for b.Loop() {
			check(b)
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			if l, err := p.Ledger(b.Context()); err != nil || l.ForgetDigests(context.Background()) != nil {
				b.Fatal("forgetting the digests")
			}
			b.StartTimer()
			check(b)
		}
	})
}

func TestKeyKind(t *testing.T) {
	for key, want := range map[string]string{"sk_live_abc": "live", " sk_test_x": "test", "abc": "", "": "", "sk_livex": ""} {
		if got := KeyKind(key); got != want {
			t.Errorf("KeyKind(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestRecentPairsCountsWhatMayHaveGone: pairs of unknown outcome, and the
// pairs a running send has not sent yet, count as possibly sent; once a
// resume settles them, the answer follows the journal (the digest does not
// go stale).
func TestRecentPairsCountsWhatMayHaveGone(t *testing.T) {
	p := testPaths(t)
	now := time.Now().Truncate(time.Second)
	plan := &model.JournalPlan{ID: "u", Time: now, Profile: "default", Sender: "3000", Items: []model.JournalItem{
		{Index: 0, Recipient: "09120000000", Message: "a"}, {Index: 1, Recipient: "09120000001", Message: "b"},
		{Index: 2, Recipient: "09120000002", Message: "c"}}}
	j, err := CreateJournal(t.Context(), p, "u")
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range []model.JournalRecord{plan,
		&model.JournalIntent{Time: now, Chunk: 0, Indexes: []int{0}, Key: "k0"},
		&model.JournalOutcome{Time: now, Chunk: 0, Results: []model.JournalResult{{Index: 0, State: model.StateAccepted}}},
		&model.JournalIntent{Time: now, Chunk: 1, Indexes: []int{1}, Key: "k1"}, // no outcome: unknown
	} {
		if err := j.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	maybe := func() []bool {
		t.Helper()
		got, err := RecentPairs(t.Context(), p, RepeatScope{Profile: "default"}, now.Add(-time.Hour))
		if err != nil || len(got) != 1 {
			t.Fatalf("RecentPairs: %v, %+v", err, got)
		}
		out := make([]bool, len(got[0].Keys))
		for i := range out {
			out[i] = got[0].Maybe != nil && got[0].Maybe[i]
		}
		return out
	}
	// While this run holds the journal, pair 2 (not sent yet) may go any moment.
	if got := maybe(); !reflect.DeepEqual(got, []bool{false, true, true}) {
		t.Errorf("running: maybe %v, want accepted, unknown, pending", got)
	}
	if got, _ := RecentPairs(t.Context(), p, RepeatScope{Profile: "default"}, now.Add(-time.Hour)); len(got) != 1 || !got[0].Running {
		t.Errorf("a send whose journal is held is not marked running: %+v", got)
	}
	if err := j.Append(&model.JournalEnd{Time: now, Interrupted: true}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if got := maybe(); !reflect.DeepEqual(got, []bool{false, true}) {
		t.Errorf("ended: maybe %v, want the accepted and the unknown pair only", got)
	}
	if got, _ := RecentPairs(t.Context(), p, RepeatScope{Profile: "default"}, now.Add(-time.Hour)); len(got) != 1 || got[0].Running {
		t.Errorf("an ended send is still marked running: %+v", got)
	}
	if got := maybe(); !reflect.DeepEqual(got, []bool{false, true}) { // from the digest now
		t.Errorf("from the digest: maybe %v", got)
	}
	// A resume settles the unknown pair as accepted: the journal grows and
	// the digest is rebuilt.
	j, _, err = OpenJournalLocked(t.Context(), p, "u")
	if err != nil {
		t.Fatal(err)
	}
	later := now.Add(time.Second)
	for _, rec := range []model.JournalRecord{&model.JournalResume{Time: later},
		&model.JournalIntent{Time: later, Chunk: 2, Indexes: []int{1}, Key: "k1"},
		&model.JournalOutcome{Time: later, Chunk: 2, Results: []model.JournalResult{{Index: 1, State: model.StateAccepted}}},
		&model.JournalEnd{Time: later}} {
		if err := j.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	if got := maybe(); !reflect.DeepEqual(got, []bool{false, false}) {
		t.Errorf("after the resume: maybe %v, want both accepted", got)
	}
}

// TestRecentPairsOfTheAccount: the repeat guard's scope is the service
// account, across profiles and operators; this profile's sends on this
// host under another key count too (a replaced key); journals written
// before the account was recorded count by profile or host (issue 27 item
// 5: a second profile on the same service and key sent 20 of 20 again).
func TestRecentPairsOfTheAccount(t *testing.T) {
	p := testPaths(t)
	now := time.Now()
	write := func(id, account, profile, base string) {
		t.Helper()
		j, err := CreateJournal(t.Context(), p, id)
		if err != nil {
			t.Fatal(err)
		}
		recs := []model.JournalRecord{
			&model.JournalPlan{ID: id, Time: now, Profile: profile, BaseURL: base, Account: account, Sender: "3000",
				Items: []model.JournalItem{{Index: 0, Recipient: "09121234567", Message: "hi " + id}}},
			&model.JournalIntent{Time: now, Chunk: 0, Indexes: []int{0}, Key: "k"},
			&model.JournalOutcome{Time: now, Chunk: 0, Results: []model.JournalResult{{Index: 0, State: model.StateAccepted, MessageID: "m"}}},
			&model.JournalEnd{Time: now},
		}
		for _, r := range recs {
			if err := j.Append(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
	}
	const here, there = "https://sms.example.com/api/v1", "https://other.example.com/v1"
	write("a-same-account-other-profile", "acct-x", "work", there) // the account decides, not the profile or the spelling
	write("b-same-account", "acct-x", "default", here)
	write("c-other-account-other-profile", "acct-y", "work", here)
	write("d-this-profile-another-key", "acct-z", "default", "https://SMS.example.com:443")
	write("h-this-profile-another-key-and-spelling", "acct-w", "default", "https://203.0.113.9/api/v1") // a new key, and the host by its address
	write("e-old-this-profile", "", "default", there)
	write("f-old-this-host", "", "old", "https://sms.example.com")
	write("g-old-elsewhere", "", "old", there)
	scope := RepeatScope{Account: "acct-x", Profile: "default", Host: model.ServiceHost(here)}
	for range 2 { // built, then from the digests
		got, err := RecentPairs(t.Context(), p, scope, now.Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, sp := range got {
			ids = append(ids, sp.SendID)
		}
		slices.Sort(ids)
		want := []string{"a-same-account-other-profile", "b-same-account", "d-this-profile-another-key", "e-old-this-profile", "f-old-this-host", "h-this-profile-another-key-and-spelling"}
		if !slices.Equal(ids, want) {
			t.Errorf("sends in the scope: %v, want %v", ids, want)
		}
	}
}
