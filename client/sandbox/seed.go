package sandbox

import (
	"fmt"
	"time"

	"github.com/smsdesk/smsdesk/assets"
	"github.com/smsdesk/smsdesk/model"
)

func loadSeed() (*assets.SeedData, error) {
	var sd assets.SeedData
	if err := jsonStrict(assets.Seed(), &sd); err != nil {
		return nil, fmt.Errorf("sandbox: embedded seed data: %w", err)
	}
	return &sd, nil
}

// generatedPrefixes are the operator prefixes generated contacts cycle through.
var generatedPrefixes = [...]string{"0912", "0935", "0990", "0919", "0937"}

// generatedMobile returns the i-th (i ≥ 1) synthetic mobile: distinct for
// i < 9,000,000 and never ending in 0000 (7919 is prime to 10⁴ and 9·10⁶).
func generatedMobile(i int) string {
	return fmt.Sprintf("%s%07d", generatedPrefixes[i%len(generatedPrefixes)], 1_000_000+(i*7919)%9_000_000)
}

// applySeed adds the seed's groups and contacts to a fresh state.
func (st *state) applySeed(sd *assets.SeedData, now time.Time) error {
	for _, sg := range sd.Groups {
		g := st.addGroup(sg.Name, sg.Description, now)
		for _, sc := range sg.Contacts {
			m, err := model.NormalizeMobile(sc.Mobile, model.FormatLocal)
			if err != nil {
				return fmt.Errorf("sandbox: seed group %q contact %q: %w", sg.Name, sc.Name, err)
			}
			st.addContact(g.ID, sc.Name, m, now)
		}
		for i := 1; i <= sg.Generate; i++ {
			name := fmt.Sprintf("Subscriber %03d", i)
			if i%2 == 0 {
				name = fmt.Sprintf("مشترک %03d", i)
			}
			st.addContact(g.ID, name, generatedMobile(i), now)
		}
	}
	return nil
}

// maxBigGroup is the largest BigGroup (generated mobiles stay distinct far
// beyond it).
const maxBigGroup = 1_000_000

// addBigGroup adds a group of n generated contacts (none when n is 0).
func (st *state) addBigGroup(n int, now time.Time) {
	if n <= 0 {
		return
	}
	g := st.addGroup("Paging drill", fmt.Sprintf("%d generated contacts", n), now)
	for i := 1; i <= n; i++ {
		st.addContact(g.ID, fmt.Sprintf("Drill %d", i), generatedMobile(i), now)
	}
}
