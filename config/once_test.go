package config

import (
	"sync"
	"testing"
	"time"
)

// TestOnceRecordFindForget: an id is found once recorded, refused a second
// time, taken back only for its own send; another account on the ledger
// finds it too (the ids are the ledger's: a key replaced, or another
// spelling of the host, must not let a once-only send go again).
func TestOnceRecordFindForget(t *testing.T) {
	p := testPaths(t)
	const acct, other = "127.0.0.1_8080-1a2b3c4d", "127.0.0.1_8080-ffffffff"
	o := OnceSend{ID: "reminders-2026-11-25", SendID: "20261125-090000-aaaaaa", Pairs: "d1", Count: 20, Time: time.Now().UTC(), Profile: "live"}
	if _, found, err := FindOnce(t.Context(), p, acct, o.ID); found || err != nil {
		t.Fatalf("before: %v %v", found, err)
	}
	if err := RecordOnce(t.Context(), p, acct, o); err != nil {
		t.Fatal(err)
	}
	got, found, err := FindOnce(t.Context(), p, acct, o.ID)
	if err != nil || !found || got.SendID != o.SendID || got.Pairs != "d1" || got.Profile != "live" {
		t.Fatalf("after: %+v %v %v", got, found, err)
	}
	if err := RecordOnce(t.Context(), p, acct, OnceSend{ID: o.ID, SendID: "20261125-100000-bbbbbb"}); err == nil {
		t.Error("an id recorded twice")
	}
	if _, found, _ := FindOnce(t.Context(), p, other, o.ID); !found {
		t.Error("another account on the ledger does not see the id")
	}
	if err := ForgetOnce(t.Context(), p, acct, o.ID, "20261125-100000-bbbbbb"); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := FindOnce(t.Context(), p, acct, o.ID); !found {
		t.Error("forgotten for another send's id")
	}
	if err := ForgetOnce(t.Context(), p, acct, o.ID, o.SendID); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := FindOnce(t.Context(), p, acct, o.ID); found {
		t.Error("not forgotten")
	}
}

// TestOnceConcurrentRecords: eight processes' worth of records at once keep
// every one.
func TestOnceConcurrentRecords(t *testing.T) {
	p := testPaths(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := string(rune('a' + i))
			if err := RecordOnce(t.Context(), p, "acct", OnceSend{ID: id, SendID: "s" + id}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i := range 8 {
		if _, found, _ := FindOnce(t.Context(), p, "acct", string(rune('a'+i))); !found {
			t.Errorf("id %c lost", 'a'+i)
		}
	}
}
