package model

import (
	"strings"
	"testing"
)

// Replay is conservative: an item whose outcome a damaged or unknown record
// may hold is unknown, never "not sent" (which a resume would send again).
func TestReplayDamagedJournal(t *testing.T) {
	const plan = `{"type":"plan","id":"s1","time":"2026-01-01T00:00:00Z","sender":"3000","items":[` +
		`{"index":0,"recipient":"09120000000","message":"a"},{"index":1,"recipient":"09120000001","message":"b"},` +
		`{"index":2,"recipient":"09120000002","message":"c"},{"index":3,"recipient":"09120000003","message":"d"}]}`
	intent := func(chunk int, idx string) string {
		return `{"type":"intent","time":"2026-01-01T00:00:01Z","chunk":` + string(rune('0'+chunk)) + `,"indexes":[` + idx + `],"key":"k"}`
	}
	outcome := func(chunk int, results string) string {
		return `{"type":"outcome","time":"2026-01-01T00:00:02Z","chunk":` + string(rune('0'+chunk)) + `,"results":[` + results + `]}`
	}
	acc := func(i string) string { return `{"index":` + i + `,"state":"accepted","message_id":"m` + i + `"}` }
	const torn = `{"type":"inte\x00\x00\x00\x00 garbage`
	end := `{"type":"end","time":"2026-01-01T00:00:03Z"}`
	tests := []struct {
		name    string
		lines   []string
		want    string // states of items 0..3: A accepted, U unknown, Q not sent
		damaged int
	}{
		{"sound", []string{plan, intent(0, "0,1"), outcome(0, acc("0")+","+acc("1")), end}, "AAQQ", 0},
		{"torn intent, its outcome intact", []string{plan, torn, outcome(0, acc("0")+","+acc("1")), end}, "UUQQ", 1},
		{"torn outcome after its intent", []string{plan, intent(0, "0,1"), torn, intent(1, "2"), outcome(1, acc("2")), end}, "UUAQ", 1},
		{"torn line of an unknown kind, then an end", []string{plan, intent(0, "0"), outcome(0, acc("0")), torn, end}, "AUUU", 1},
		{"torn last line (complete), no end", []string{plan, intent(0, "0"), outcome(0, acc("0")), torn}, "AUUU", 1},
		{"damaged delivery record", []string{plan, intent(0, "0"), outcome(0, acc("0")), end, `{"type":"delivery","time":"x`}, "AQQQ", 1},
		{"a state word from a newer version", []string{plan, intent(0, "0,1"), outcome(0, acc("0")+`,{"index":1,"state":"scheduled"}`), end}, "AUQQ", 0},
		{"an outcome without any intent", []string{plan, outcome(0, acc("0")), end}, "UQQQ", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := ReplayJournal(strings.NewReader(strings.Join(tc.lines, "\n") + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			var got strings.Builder
			for _, it := range st.Items {
				switch it.State {
				case StateAccepted:
					got.WriteByte('A')
				case StateUnknown:
					got.WriteByte('U')
				case StateQueued:
					got.WriteByte('Q')
				default:
					got.WriteString("(" + string(it.State) + ")")
				}
			}
			if got.String() != tc.want || st.Damaged != tc.damaged {
				t.Fatalf("states %s damaged %d, want %s and %d", got.String(), st.Damaged, tc.want, tc.damaged)
			}
			for _, i := range st.ResumeIndexes(false) {
				if it, _ := st.Item(i); it.State != StateQueued {
					t.Fatalf("resume would send item %d (%s)", i, it.State)
				}
			}
		})
	}
}
