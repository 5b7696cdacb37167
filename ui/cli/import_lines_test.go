package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/smsdesk/smsdesk/model"
	"github.com/smsdesk/smsdesk/model/eventually"
	"github.com/smsdesk/smsdesk/model/syncbuf"
)

// TestContactsImportJSONLines: --json-lines streams one JSON line a row as
// its outcome is decided (a big import's --json was one document at the
// end), then a summary line {group_id, counts}. The third row's line is on
// stdout while the fourth row is still being added.
func TestContactsImportJSONLines(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var adds atomic.Int32
	hold := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/contacts") && adds.Add(1) == 3 {
				<-release // the third new contact waits until the test has seen the second's line
			}
			next.ServeHTTP(w, r)
		})
	}
	e := newSendEnv(t, hold)
	gid, _ := e.mustRun(t, 0, "groups", "create", "lines")
	gid = strings.TrimSpace(gid)
	e.mustRun(t, 0, "contacts", "add", gid, "09121110001") // already in the group: adds is 1 now
	file := filepath.Join(e.dir, "c.csv")
	csv := "mobile,name\n09121110001,Ali\n0912,Short\n09121110002,Sara\n09121110003,Reza\n09121110004,Nima\n"
	if err := os.WriteFile(file, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncbuf.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(context.Background(), []string{"contacts", "import", gid, file, "--skip-invalid", "--json-lines"},
			Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: e.getenv})
	}()
	printed := eventually.Within(waitLimit, func() bool {
		return strings.Contains(stdout.String(), `"mobile":"09121110002","name":"Sara","status":"added"`)
	})
	close(release)
	if !printed {
		t.Fatalf("no line for the first row added while the next one is held:\n%s", stdout.String())
	}
	if code := <-done; code != ExitService { // one invalid row: not everything was imported
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 5 rows and a summary:\n%s", len(lines), stdout.String())
	}
	var order []string
	for _, l := range lines[:5] {
		var r model.ImportRow
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Line == 0 {
			t.Fatalf("row line %q: %v", l, err)
		}
		order = append(order, r.Status)
	}
	if strings.Join(order, ",") != "invalid,skipped,added,added,added" {
		t.Errorf("rows in the order decided: %v", order)
	}
	var sum map[string]json.RawMessage
	if err := json.Unmarshal([]byte(lines[5]), &sum); err != nil || len(sum) != 2 || sum["group_id"] == nil {
		t.Fatalf("summary line %q: %v", lines[5], err)
	}
	var counts importCountsJSON
	if err := json.Unmarshal(sum["counts"], &counts); err != nil || counts != (importCountsJSON{Added: 3, Invalid: 1, AlreadyInGroup: 1, Skipped: 1}) {
		t.Errorf("summary counts %+v (%v)", counts, err)
	}
	if stderr.String() != "" && !strings.HasPrefix(stderr.String(), "{") {
		t.Errorf("stderr is not the one JSON error object:\n%s", stderr.String())
	}

	// Refused (an invalid row, no --skip-invalid): its line, the summary,
	// exit 2 with the JSON error object on stderr.
	code, out, errOut := e.run(t, "contacts", "import", gid, file, "--json-lines")
	if lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); code != ExitUsage || len(lines) != 2 || !strings.Contains(lines[0], `"status":"invalid"`) ||
		!strings.HasPrefix(lines[1], `{"group_id":`) || errorObject(t, errOut).Error.Code != "input" {
		t.Errorf("refused: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, bad := range [][]string{{"--json", "--json-lines"}, {"--json-lines", "--jq", ".counts"}} {
		if code, _, _ := e.run(t, append([]string{"contacts", "import", gid, file}, bad...)...); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
}
