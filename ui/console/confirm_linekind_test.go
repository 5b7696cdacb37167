package console

import (
	"context"
	"strings"
	"testing"

	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
)

// TestConfirmationNamesTheLineKind (issue 42 §6): the console's
// confirmation says which rules the send's line adds, and why, as the
// CLI's plan does: an advertising line's quiet hours for MCI numbers; a
// service line's «لغو۱۱» (on every sample, though the profile sets no
// suffix) and no quiet hours of its own.
func TestConfirmationNamesTheLineKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind model.LineKind
		want []string
	}{
		{model.LineAdvertising, []string{"Rules:       advertising line 3000505: quiet hours 22:00–07:00 Asia/Tehran for MCI numbers", "(4 of 8 recipients)"}},
		{model.LineService, []string{"Rules:       service line 3000505: suffix «لغو۱۱», no quiet hours of its own", "Suffix:      every message ends with the line لغو۱۱"}},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, sandbox.Options{})
			if _, err := e.opts.Session.SetLineKind(context.Background(), "3000505", tc.kind); err != nil {
				t.Fatal(err)
			}
			tm := e.startOnGroup1(t)
			tm.Send(press("c"))
			typeText(tm, "Hello {name|friend}")
			tm.Send(press("ctrl+s"))
			waitFor(t, tm, "Send these messages?")
			view := ""
			waitModel(t, tm, "dialog", func(m *root) bool { view = m.text(); return m.modal != nil })
			for _, want := range tc.want {
				if !strings.Contains(view, want) {
					t.Errorf("confirmation lacks %q:\n%s", want, view)
				}
			}
			tm.Send(press("n"))
			waitModel(t, tm, "dialog closed", func(m *root) bool { return m.modal == nil })
		})
	}
}

// TestComposerCountsTheServiceLineSuffix: over a service line whose
// profile sets no suffix, the composer's counter, rows and totals count
// the message with «لغو۱۱», as the confirmation and the send do. They read
// GSM-7 · 1 part (the profile's rules alone) while the send went as UCS-2.
func TestComposerCountsTheServiceLineSuffix(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sandbox.Options{})
	if _, err := e.opts.Session.SetLineKind(context.Background(), "3000505", model.LineService); err != nil {
		t.Fatal(err)
	}
	tm := e.startOnGroup1(t)
	tm.Send(press("c"))
	typeText(tm, "Hello {name|friend}")
	waitModel(t, tm, "the draft planned with the service line's suffix", func(m *root) bool {
		p := m.composer.plan
		return p != nil && p.Suffix == model.ServiceSuffix && len(p.Items) == 8 && strings.HasSuffix(p.Items[0].Message, model.ServiceSuffix)
	})
	waitFor(t, tm, "UCS-2: the suffix is Persian")
}
