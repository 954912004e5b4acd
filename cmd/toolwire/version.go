package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the toolwire version",
		Long: `version prints the module version toolwire was built from (go install
github.com/toolwire/toolwire/cmd/toolwire@v1.2.0 stamps v1.2.0), or for a
build from a clone the commit, "-dirty" when the clone had changes, and the
commit's time; then the Go version.`,
		Args: nArgs(0, 0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintf(e.stdout, "toolwire %s %s\n", version(), runtime.Version())
			return nil
		},
	}
}

// version is the version of this binary, as versionOf says it.
func version() string {
	return versionOf(debug.ReadBuildInfo())
}

// versionOf says which toolwire info (ok when there is any, as
// debug.ReadBuildInfo returns it) describes: the main module's version
// when the go command set one (a release, or a pseudo-version, which
// holds the commit), else "devel", the commit's revision (12 digits),
// "-dirty" when the clone had changes, and the commit's time, from the
// version control settings the go command stamps into a build from a
// clone.
func versionOf(info *debug.BuildInfo, ok bool) string {
	if !ok || info == nil {
		return "unknown (the binary holds no build information)"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, when, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
			if len(rev) > 12 {
				rev = rev[:12]
			}
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "devel (no commit stamped: build it with go build in a clone, without -buildvcs=false)"
	}
	v := "devel " + rev + dirty
	if when != "" {
		v += " (" + when + ")"
	}
	return v
}
