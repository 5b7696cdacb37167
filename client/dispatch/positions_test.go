package dispatch

import (
	"testing"

	"github.com/smsdesk/smsdesk/model"
)

func TestPositions(t *testing.T) {
	mk := func(idx ...int) []model.JournalItem {
		out := make([]model.JournalItem, len(idx))
		for i, x := range idx {
			out[i] = model.JournalItem{Index: x}
		}
		return out
	}
	tests := []struct {
		name   string
		items  []model.JournalItem
		hasDup bool
		dup    int // the index given twice, when hasDup
		sparse bool
	}{
		{"dense in order", mk(0, 1, 2, 3), false, 0, false},
		{"dense shuffled with gaps", mk(7, 2, 0, 9), false, 0, false},
		{"negative index", mk(0, -3, 5), false, 0, true},
		{"far index", mk(0, 1, 1_000_000), false, 0, true},
		{"duplicate dense", mk(0, 4, 4), true, 4, false},
		{"duplicate sparse", mk(-1, 2, -1), true, -1, true},
		{"empty", nil, false, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, dup, ok := newPositions(tt.items)
			if ok == tt.hasDup {
				t.Fatalf("ok = %v, want %v", ok, !tt.hasDup)
			}
			if !ok {
				if dup != tt.dup {
					t.Errorf("dup = %d, want %d", dup, tt.dup)
				}
				return
			}
			if (p.sparse != nil) != tt.sparse {
				t.Errorf("sparse = %v, want %v", p.sparse != nil, tt.sparse)
			}
			for i, it := range tt.items {
				if got, ok := p.get(it.Index); !ok || got != i {
					t.Errorf("get(%d) = %d, %v; want %d", it.Index, got, ok, i)
				}
			}
			for _, missing := range []int{-2, 1, 8, 10, 999, 1 << 40} {
				if in := func() bool {
					for _, it := range tt.items {
						if it.Index == missing {
							return true
						}
					}
					return false
				}(); in {
					continue
				}
				if got, ok := p.get(missing); ok {
					t.Errorf("get(%d) = %d, found; it is not in the job", missing, got)
				}
			}
		})
	}
}
