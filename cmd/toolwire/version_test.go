package main

import (
	"runtime/debug"
	"testing"
)

// version names the build: its module version when it has one (go
// install ...@v1.2.0), else the commit it was built from, with a dirty
// flag and the commit's time, as the go command stamps a build from a
// clone.
func TestVersionOf(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	const rev = "1c24bcc0a1b2c3d4e5f60718293a4b5c6d7e8f90"
	tests := []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"release", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}, Settings: vcs("vcs.revision", rev)}, true, "v1.2.0"},
		{"pseudo-version", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20251204204500-1c24bcc0a1b2+dirty"}}, true, "v0.0.0-20251204204500-1c24bcc0a1b2+dirty"},
		{"clean clone", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs", "git", "vcs.revision", rev, "vcs.time", "2025-12-04T20:45:00Z", "vcs.modified", "false")}, true,
			"devel 1c24bcc0a1b2 (2025-12-04T20:45:00Z)"},
		{"dirty clone", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", rev, "vcs.time", "2025-12-04T20:45:00Z", "vcs.modified", "true")}, true,
			"devel 1c24bcc0a1b2-dirty (2025-12-04T20:45:00Z)"},
		{"no time", &debug.BuildInfo{Main: debug.Module{Version: ""}, Settings: vcs("vcs.revision", "abc123", "vcs.modified", "true")}, true, "devel abc123-dirty"},
		{"no stamp", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true,
			"devel (no commit stamped: build it with go build in a clone, without -buildvcs=false)"},
		{"no build info", nil, false, "unknown (the binary holds no build information)"},
	}
	for _, tt := range tests {
		if got := versionOf(tt.info, tt.ok); got != tt.want {
			t.Errorf("versionOf(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
