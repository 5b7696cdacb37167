package dispatch

import "github.com/smsdesk/smsdesk/model"

// positions maps plan indexes to positions in a job's item list: a slice when
// the indexes are dense (as plans number them, 0…n-1), a map otherwise.
type positions struct {
	dense  []int32 // dense[index] = position+1; 0 = no such index
	sparse map[int]int
}

// newPositions indexes items; dup is an index given twice (ok=false).
func newPositions(items []model.JournalItem) (p positions, dup int, ok bool) {
	limit := 2*len(items) + 64
	for _, it := range items {
		if it.Index < 0 || it.Index >= limit {
			p.sparse = make(map[int]int, len(items))
			break
		}
	}
	if p.sparse == nil {
		p.dense = make([]int32, limit)
	}
	for i, it := range items {
		if _, seen := p.get(it.Index); seen {
			return positions{}, it.Index, false
		}
		if p.sparse != nil {
			p.sparse[it.Index] = i
		} else {
			p.dense[it.Index] = int32(i + 1)
		}
	}
	return p, 0, true
}

// get returns the position of plan index i.
func (p *positions) get(i int) (int, bool) {
	if p.sparse != nil {
		pos, ok := p.sparse[i]
		return pos, ok
	}
	if i < 0 || i >= len(p.dense) || p.dense[i] == 0 {
		return 0, false
	}
	return int(p.dense[i]) - 1, true
}
