package app

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The faces (ui/cli, ui/console, ui/serve) ask and format: every flow has
// one entry here, in ui/app, which reads and writes what config keeps and
// asks the service through client (docs/ARCHITECTURE.md, "The layers").
// TestFacesOnlyAskAndFormat holds them to it: a face may use config's and
// client's types, constants and error values, and the methods of the
// values it is given; it may not call config's functions, use its
// package variables, or call the client, except for the uses listed in
// faceExceptions, each with why.

const module = "github.com/smsdesk/smsdesk/"

// faces are the packages held to the rule.
var faces = []string{module + "ui/cli", module + "ui/console", module + "ui/serve"}

// faceExceptions are the calls a face may still make, with why. Each is
// "face: pkg.Name" (pkg config, ledger or client; a method of the client
// is client.Client.Name).
var faceExceptions = map[string]string{
	// Wiring: the command line's factory finds smsdesk's files and the
	// keyring and opens the debug log, once a run, as main.go would; no
	// flow runs there.
	"cli: config.PathsFromEnv":     "wiring: smsdesk's directories from the environment",
	"cli: config.NewSecrets":       "wiring: the run's secret store",
	"cli: config.SystemKeyring":    "wiring: the system keyring behind it",
	"cli: config.WithLookupEnv":    "wiring: the store reads SMSDESK_API_KEY through the run's environment",
	"cli: config.RedactingHandler": "wiring: --debug's log, the key redacted",
	// The settings file: profiles, config get/set/unset, completion and
	// doctor read config.toml as a value and change it under its lock
	// (config.Update). Settings are not yet a flow of ui/app's (issue 41
	// routed the faces' reads of the ledger, the service and the state
	// files; these four are the lead's next step).
	"cli: config.Load":            "the settings file, read as a value",
	"cli: config.Update":          "the settings file, changed under its lock",
	"cli: config.LedgerPlaceOf":   "the ledger setting in force, as config get shows it",
	"cli: config.ReadLedgerPlace": "the ledger setting in force, for doctor's ledger line",
	// Pure: no file, ledger or request.
	"cli: config.Fingerprint":           "pure: a key's fingerprint, for people",
	"cli: config.SecretFingerprint":     "pure: a secret's fingerprint (a short hash), for people",
	"cli: config.KeyKind":               "pure: a key's kind from its prefix",
	"cli: config.ParseWindow":           "pure: a duration in the settings' words (7d)",
	"cli: config.ParseDeliveryDuration": "pure: delivery_poll_after's and delivery_unknown_after's words (10m, 5d)",
	"cli: config.ValidateProfileName":   "pure: a profile name's rule",
	"cli: ledger.Redact":                "pure: a ledger URL without its password",
	"cli: client.RetryUntil":            "pure: a context bounding the client's retries (a check's one attempt)",
	"console: client.SleepContext":      "pure: a sleep that ends with its context",
	"serve: client.SleepContext":        "pure: a sleep that ends with its context",
	"console: config.ResolveBidi":       "pure: the bidi setting against the terminal's environment",
	// The client's own state, no request.
	"cli: client.Client.RateStatus":     "the request budget the session's client holds (status, doctor)",
	"console: client.Client.RateStatus": "the request budget the session's client holds (the results' clock)",
	// SSH authentication: serve checks who connects against operators.toml
	// before any session (and so ui/app) exists for them.
	"serve: config.ReadOperators": "the operators who may sign in, read as a connection comes",
	"serve: config.FindOperator":  "the operator a connection's public key is",
}

// TestFacesOnlyAskAndFormat type-checks the faces (from the export data
// `go list -export` builds) and lists every use of config or client beyond
// types: each must be in faceExceptions, and each exception must still be
// used (a stale one hides the next real one).
func TestFacesOnlyAskAndFormat(t *testing.T) {
	uses := faceUses(t)
	var bad []string
	for use, where := range uses {
		if _, ok := faceExceptions[use]; !ok {
			bad = append(bad, use+" ("+where+")")
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("a face reaches past ui/app: %s", b)
	}
	for use := range faceExceptions {
		if _, ok := uses[use]; !ok {
			t.Errorf("faceExceptions lists %s, which no face uses now: take it out", use)
		}
	}
}

// listedPackage is what `go list -json` says of a package.
type listedPackage struct {
	ImportPath string
	Dir        string
	Export     string
	GoFiles    []string
}

// faceUses are the faces' uses of config and client beyond types, each
// with the first place it stands.
func faceUses(t *testing.T) map[string]string {
	t.Helper()
	args := append([]string{"list", "-deps", "-export", "-json"}, faces...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]listedPackage{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs[p.ImportPath] = p
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		p, ok := pkgs[path]
		if !ok || p.Export == "" {
			return nil, errors.New("no export data for " + path)
		}
		return os.Open(p.Export)
	})
	uses := map[string]string{}
	for _, face := range faces {
		p := pkgs[face]
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
		if _, err := (&types.Config{Importer: imp}).Check(face, fset, files, info); err != nil {
			t.Fatalf("type-checking %s: %v", face, err)
		}
		short := strings.TrimPrefix(face, module+"ui/")
		for id, obj := range info.Uses {
			if use := reachPast(obj); use != "" {
				key := short + ": " + use
				pos := fset.Position(id.Pos())
				where := filepath.Base(pos.Filename) + ":" + strconv.Itoa(pos.Line)
				if w, ok := uses[key]; !ok || where < w {
					uses[key] = where
				}
			}
		}
	}
	return uses
}

// reachPast names obj when using it reaches past ui/app: a function or a
// variable of config (or its ledger) that is not an error value, or
// anything of client's that calls it (a function, a method of Client);
// "" for types, constants, error values and the methods of other values.
func reachPast(obj types.Object) string {
	if obj.Pkg() == nil {
		return ""
	}
	pkg := obj.Pkg().Path()
	name := map[string]string{module + "config": "config", module + "config/ledger": "ledger", module + "client": "client"}[pkg]
	if name == "" {
		return ""
	}
	switch o := obj.(type) {
	case *types.Func:
		recv := o.Type().(*types.Signature).Recv()
		if recv == nil {
			return name + "." + o.Name()
		}
		if name == "client" && slices.Contains([]string{"Client"}, recvName(recv.Type())) {
			return "client.Client." + o.Name()
		}
	case *types.Var:
		if o.Parent() == obj.Pkg().Scope() && !types.Implements(o.Type(), errorType) {
			return name + "." + o.Name()
		}
	}
	return ""
}

var errorType = types.Universe.Lookup("error").Type().Underlying().(*types.Interface)

// recvName is the name of a method's receiver type (pointer or not).
func recvName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := t.(*types.Named); ok {
		return n.Obj().Name()
	}
	return ""
}
