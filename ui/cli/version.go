package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Commit and Date are set at build time (-ldflags "-X …cli.Commit=…");
// otherwise they come from the Go build info when it has them.
var (
	Commit = ""
	Date   = ""
)

// versionText is "0.1.0 (commit 3f2a1c9, built 2026-11-24T01:02:03Z,
// go1.26.8)"; what the build did not record is "unknown".
func versionText() string {
	v := readBuildInfo()
	return fmt.Sprintf("%s (commit %s, built %s, %s)", v.Version, v.Commit, v.Date, v.Go)
}

// unknownBuild is the commit or date of a build that did not record it: a
// plain `go build` with -buildvcs=false (as .ci/run and some Go setups
// have it), or outside a git checkout, and without make release's -ldflags.
const unknownBuild = "unknown"

// buildInfo is `smsdesk version --json`.
type buildInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"` // 12 hex digits, +changes when built from a modified tree; "unknown"
	Date    string `json:"date"`   // the commit's time (or make release's build time); "unknown"
	Go      string `json:"go"`
}

func readBuildInfo() buildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return buildInfoOf(bi, Commit, Date)
}

// buildInfoOf is the version, commit and date from what -ldflags stamped
// (commit, date: make release) or else the Go build info's VCS data
// (vcs.revision, vcs.time, vcs.modified, recorded by go build and go install
// in a git checkout); "unknown" where neither says. bi may be nil.
func buildInfoOf(bi *debug.BuildInfo, commit, date string) buildInfo {
	v := buildInfo{Version: Version, Commit: commit, Date: date, Go: runtime.Version()}
	modified := false
	if bi != nil {
		if bi.GoVersion != "" {
			v.Go = bi.GoVersion
		}
		for _, st := range bi.Settings {
			switch st.Key {
			case "vcs.revision":
				if v.Commit == "" {
					v.Commit = st.Value
				}
			case "vcs.time":
				if v.Date == "" {
					v.Date = st.Value
				}
			case "vcs.modified":
				modified = st.Value == "true"
			}
		}
	}
	if len(v.Commit) > 12 {
		v.Commit = v.Commit[:12]
	}
	if modified && v.Commit != "" {
		v.Commit += "+changes"
	}
	if v.Commit == "" {
		v.Commit = unknownBuild
	}
	if v.Date == "" {
		v.Date = unknownBuild
	}
	return v
}

// versionOptions are what version was asked.
type versionOptions struct {
	IO   *IOStreams
	JSON bool
}

func newCmdVersion(f *Factory, runF func(context.Context, *versionOptions) error) *cobra.Command {
	o := &versionOptions{IO: f.IO}
	if runF == nil {
		runF = versionRun
	}
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print smsdesk's version",
		Example: "  smsdesk version\n  smsdesk version --json",
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, args []string) error { return runF(cmd.Context(), o) },
	}
	addJSONFlag(cmd, &o.JSON, "print version, commit, build date and Go version as JSON", versionFields, "smsdesk version --json=version")
	return cmd
}

// versionRun prints the version, or the build as JSON.
func versionRun(_ context.Context, o *versionOptions) error {
	if o.JSON {
		return printJSON(o.IO.Out, readBuildInfo())
	}
	fmt.Fprintf(o.IO.Out, "smsdesk %s\n", versionText())
	return nil
}
