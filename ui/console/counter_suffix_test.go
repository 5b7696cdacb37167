package console

import (
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
)

// latin104 is a 104-character Latin text: one GSM-7 part by itself, two
// UCS-2 parts with a Persian suffix.
var latin104 = "Your parcel is at the Vanak branch, open 9-17. Bring your ID card and the code we sent you; thanks, A" + "cme"

// TestCounterCountsTheSuffix (issue 40 item 1): with the profile's suffix
// «لغو۱۱» a 104-character Latin template showed "104 chars · GSM-7 · 104
// units · 1 part · 56 left in this part (160 per part)" while every row
// said 110 UCS-2 2 (now UCS-2 2: a row shows no characters, issue 40's
// bytes) and the totals 2 parts a recipient. The counter counts
// the message as it will go out (the rows' and the confirmation's rule),
// says why it is UCS-2, and "left in this part" is true.
func TestCounterCountsTheSuffix(t *testing.T) {
	t.Parallel()
	if len(latin104) != 104 {
		t.Fatalf("the text is %d characters", len(latin104))
	}
	for _, size := range issueSizes {
		t.Run(sizeName(size), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, sandbox.Options{})
			e.opts.Session.Profile.Suffix = "لغو۱۱"
			tm := e.startOnGroup1At(t, size[0], size[1])
			writeTemplate(t, tm, latin104, 8)
			tm.Send(press("esc"))
			var frame string
			waitModel(t, tm, "the editor left", func(m *root) bool { frame = m.text(); return !m.composer.Editing() })
			for _, want := range []string{"110 chars with the suffix · UCS-2 · 110 units", "2 parts (UCS-2: the suffix is Persian)",
				"24 left in this part (67 per part)", "Totals: 8 recipients · 16 parts"} {
				if !strings.Contains(frame, want) {
					t.Errorf("the composer lacks %q:\n%s", want, frame)
				}
			}
			if !strings.Contains(frame, "UCS-2       2 ok") {
				t.Errorf("the rows do not say UCS-2 2:\n%s", frame)
			}
			fitsWhole(t, frame, size[0], size[1])
			namedGolden(t, "composer", frame)

			tm.Send(press("ctrl+s"))
			waitModel(t, tm, "the confirmation", func(m *root) bool { frame = m.text(); return modalTitle(m) == "Send these messages?" })
			if !strings.Contains(frame, "8 recipients · 8 UCS-2 → 16 parts") {
				t.Errorf("the confirmation does not count as the composer:\n%s", frame)
			}
		})
	}
}
