package importer

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/smsdesk/smsdesk/client"
	"github.com/smsdesk/smsdesk/client/sandbox"
	"github.com/smsdesk/smsdesk/model"
)

func setup(t *testing.T) (*client.Client, model.ID) {
	t.Helper()
	srv, err := sandbox.New(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	base, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl, err := client.New(base, srv.Key(), client.WithRatePerMinute(60000))
	if err != nil {
		t.Fatal(err)
	}
	g, err := cl.CreateGroup(context.Background(), client.NewGroup{Name: "import"})
	if err != nil {
		t.Fatal(err)
	}
	return cl, g.ID
}

func contactRows(n int) []model.ContactRow {
	rows := make([]model.ContactRow, n)
	for i := range rows {
		rows[i] = model.ContactRow{Line: i + 2, Mobile: fmt.Sprintf("0912555%04d", i), Name: fmt.Sprintf("c%d", i)}
	}
	return rows
}

// TestImportCancelledThenRunAgain: an import cancelled after 4 of 10 rows, run
// again, adds only the 6 missing; the service holds each number once.
func TestImportCancelledThenRunAgain(t *testing.T) {
	cl, gid := setup(t)
	rows := contactRows(10)
	ctx, cancel := context.WithCancel(context.Background())
	pv, err := Preview(ctx, cl, gid, rows, model.FormatLocal)
	if err != nil {
		t.Fatal(err)
	}
	first := Run(ctx, cl, gid, pv.Valid, func(i int) {
		if i == 3 {
			cancel()
		}
	})
	if first.Added != 4 || first.NotAttempted != 6 {
		t.Fatalf("cancelled run: %+v, want 4 added, 6 not attempted", first)
	}
	pv, err = Preview(context.Background(), cl, gid, rows, model.FormatLocal)
	if err != nil {
		t.Fatal(err)
	}
	if len(pv.Already) != 4 || len(pv.Valid) != 6 {
		t.Fatalf("second preview: %d already, %d valid; want 4 and 6", len(pv.Already), len(pv.Valid))
	}
	if second := Run(context.Background(), cl, gid, pv.Valid, nil); second.Added != 6 || second.Failed != 0 {
		t.Fatalf("second run: %+v, want 6 added", second)
	}
	cs, err := cl.ListContacts(context.Background(), gid, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, c := range cs {
		seen[c.Mobile]++
	}
	if len(cs) != 10 || len(seen) != 10 {
		t.Fatalf("the group holds %d contacts, %d numbers; want 10 distinct", len(cs), len(seen))
	}
}

// TestImportDuplicateAnswerIsSkipped: rows the service already has (added
// behind the preview's back) are skipped, not failed.
func TestImportDuplicateAnswerIsSkipped(t *testing.T) {
	cl, gid := setup(t)
	pv := model.PreviewImport(contactRows(3), model.FormatLocal, nil)
	if s := Run(context.Background(), cl, gid, pv.Valid, nil); s.Added != 3 {
		t.Fatalf("first run: %+v", s)
	}
	again := model.PreviewImport(contactRows(3), model.FormatLocal, nil) // a stale preview
	s := Run(context.Background(), cl, gid, again.Valid, nil)
	if s.Already != 3 || s.Failed != 0 || s.Added != 0 {
		t.Fatalf("run over numbers the group has: %+v, want 3 skipped", s)
	}
	for _, r := range again.Valid {
		if r.Status != model.ImportSkipped {
			t.Errorf("line %d: %s (%s), want skipped", r.Line, r.Status, r.Error)
		}
	}
}

// TestImportStopsARowWaitingOnTheService: a row held back by a 429 (the
// service asked to wait a minute) is not sent once the import is stopped:
// Run returns at once and counts it not attempted, not failed.
func TestImportStopsARowWaitingOnTheService(t *testing.T) {
	asked := make(chan struct{}, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked <- struct{}{}
		w.Header().Set("Retry-After", "60")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"message":"slow down"}`))
	}))
	defer srv.Close()
	cl, err := client.New(srv.URL+"/api/v1", "sk_test_x", client.WithAllowInsecureHTTP(true),
		client.WithRateWaitFor(10*time.Minute), client.WithRetryDeadline(10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	rows := []model.ImportRow{{Line: 2, Mobile: "09125550001"}, {Line: 3, Mobile: "09125550002"}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Summary, 1)
	go func() { done <- Run(ctx, cl, "7", rows, nil) }()
	<-asked // the first row has its 429 and waits a minute to ask again
	cancel()
	select {
	case s := <-done:
		if s != (Summary{NotAttempted: 2}) || rows[0].Status != model.ImportSkipped {
			t.Errorf("summary %+v, first row %+v; want both not attempted", s, rows[0])
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stopped import still waits on the service")
	}
}
