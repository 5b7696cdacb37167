package eventually

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// testOnly are the packages that only tests may import: this one, the
// clock tests control and the buffer tests read while it is written.
var testOnly = []string{
	"github.com/smsdesk/smsdesk/model/eventually",
	"github.com/smsdesk/smsdesk/model/fakeclock",
	"github.com/smsdesk/smsdesk/model/syncbuf",
}

// TestOnlyTestsImportIt: no file of the program (a .go file that is not a
// _test.go) imports a test-only package, so that nothing the operator runs
// polls, or waits on a clock a test moves.
func TestOnlyTestsImportIt(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		seen++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, only := range testOnly {
				if p == only && !strings.HasPrefix(filepath.ToSlash(path), filepath.ToSlash(filepath.Join(root, strings.TrimPrefix(only, "github.com/smsdesk/smsdesk/")))) {
					t.Errorf("%s imports %s, which only tests may", path, p)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 100 {
		t.Fatalf("read %d files of the program: not the module's root?", seen)
	}
}
