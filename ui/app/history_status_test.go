package app

import (
	"testing"

	"github.com/smsdesk/smsdesk/model"
)

// TestSendStatus: a send whose run ended reads by its end even while that run
// still holds the journal to watch delivery (it read "running" for as long as
// the console watched delivery, and a cron job reading history saw it so).
func TestSendStatus(t *testing.T) {
	accepted := []model.SentItem{{State: model.StateAccepted}}
	notSent := []model.SentItem{{State: model.StateQueued}}
	tests := []struct {
		name    string
		st      model.JournalState
		running bool
		want    string
	}{
		{"sending", model.JournalState{Items: notSent}, true, "running"},
		{"ended, watching delivery", model.JournalState{Items: accepted, Ended: true}, true, "complete"},
		{"ended", model.JournalState{Items: accepted, Ended: true}, false, "complete"},
		{"stopped, watching delivery", model.JournalState{Items: notSent, Ended: true, Stopped: "insufficient_credit"}, true, "stopped"},
		{"died", model.JournalState{Items: notSent, Interrupted: true}, false, "interrupted"},
	}
	for _, tt := range tests {
		if got := SendStatus(&tt.st, tt.running); got != tt.want {
			t.Errorf("%s: SendStatus = %q, want %q", tt.name, got, tt.want)
		}
	}
}
