package wire

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/internal/realtraffic"
	"github.com/toolwire/toolwire/transcript"
)

// rejectedRule is the rule each in-scope rejected body must be rejected
// by: the one whose provider error the recording holds.
var rejectedRule = map[string]string{
	"anthropic/mirascope-empty-string-user-content.json":         "ANT-NONEMPTY",
	"anthropic/opencode-text-after-tool-use.json":                "ANT-RESULT-NEXT",
	"openai-chat/crewai-content-part-missing-type.json":          "OAI-CC-PART-TYPE",
	"openai-responses/mirascope-strict-required-missing.json":    "OAI-STRICT-REQUIRED",
	"openai-responses/pai-reasoning-without-following-item.json": "OAI-RS-REASONING-FOLLOW",
}

// eachBody runs f, as a subtest named after the file, on every body under
// kind with its dialect and the report Check made of it (a body Check
// cannot read fails the subtest).
func eachBody(t *testing.T, kind string, f func(t *testing.T, name string, data []byte, d transcript.Dialect, rep *Report)) {
	t.Helper()
	for _, file := range realtraffic.Bodies(t, kind) {
		name := strings.TrimPrefix(file, filepath.Join(realtraffic.Dir(t), kind)+"/")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			d := realtraffic.Dialect(t, file)
			rep, err := Check(data, d)
			if err != nil {
				t.Fatalf("unreadable: %v", err)
			}
			f(t, name, data, d, rep)
		})
	}
}

// TestRealTrafficAccepted checks every body a provider answered with 200:
// toolwire reads it, accepts it, and check --fix gives back its bytes
// unchanged.
func TestRealTrafficAccepted(t *testing.T) {
	eachBody(t, "accepted", func(t *testing.T, _ string, data []byte, d transcript.Dialect, rep *Report) {
		if !rep.Accepted() {
			t.Fatalf("rejected (a false positive): %v", errorsOf(rep.Violations))
		}
		f, err := Fix(data, d, nil)
		if err != nil {
			t.Fatalf("Fix: %v", err)
		}
		if !bytes.Equal(f.Body, data) {
			t.Errorf("Fix changed an accepted body (changes %v)\n got: %.600s\nwant: %.600s", f.Changes, f.Body, data)
		}
	})
}

// TestRealTrafficRejected checks every body a provider answered with 400:
// toolwire reads it; an in-scope one is rejected by the rule whose error
// the provider gave, and its repair is accepted.
func TestRealTrafficRejected(t *testing.T) {
	seen := map[string]bool{}
	eachBody(t, "rejected", func(t *testing.T, name string, data []byte, d transcript.Dialect, rep *Report) {
		if strings.HasPrefix(filepath.Base(name), "oos-") {
			return // rejected for a reason outside the tool-message rules
		}
		seen[name] = true
		want, ok := rejectedRule[name]
		if !ok {
			t.Fatalf("an in-scope rejected body with no expected rule: add it to rejectedRule")
		}
		if rep.Accepted() {
			t.Fatalf("accepted (a false negative); want %s", want)
		}
		if !slices.ContainsFunc(rep.Violations, func(v transcript.Violation) bool { return v.Rule == transcript.RuleID(want) && !v.Warning }) {
			t.Errorf("rejected by %v, want %s among them", errorsOf(rep.Violations), want)
		}
		f, err := Fix(data, d, nil)
		if err != nil {
			t.Fatalf("Fix: %v", err)
		}
		if !f.Accepted() {
			t.Errorf("the repaired body is still rejected: %v\n%s", errorsOf(f.Violations), f.Body)
		}
	})
	for name := range rejectedRule {
		if !seen[name] && !t.Failed() {
			t.Errorf("rejectedRule names %s, which is not in the corpus", name)
		}
	}
}

// errorsOf returns the rule@path of each violation that is not a warning.
func errorsOf(vs []transcript.Violation) []string {
	var out []string
	for _, v := range vs {
		if !v.Warning {
			out = append(out, string(v.Rule)+"@"+v.Path)
		}
	}
	return out
}

// TestRealTrafficDetect checks that Detect finds the dialect of every
// recorded body, without calling it ambiguous: each was sent to one API,
// and its shape says which.
func TestRealTrafficDetect(t *testing.T) {
	for _, kind := range []string{"accepted", "rejected"} {
		for _, file := range realtraffic.Bodies(t, kind) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			det, err := Detect(data)
			if want := realtraffic.Dialect(t, file); err != nil || det.Ambiguous() || det.Dialect != want {
				t.Errorf("%s: Detect = %v (%s), %v; want %s", strings.TrimPrefix(file, realtraffic.Dir(t)+"/"), det.Candidates, det.Reason, err, want)
			}
		}
	}
}

// fieldRuleOf maps the out-of-scope rejected bodies that the field rules
// judge (an option out of its range) to the rule and the provider error
// the recording holds.
var fieldRuleOf = map[string][2]string{
	"openai-responses/oos-mirascope-max-output-tokens-below-min.json": {"OAI-RS-OPTION-RANGE",
		"Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 5 instead."},
	"openai-responses/oos-pai-temperature-below-min.json": {"OAI-RS-OPTION-RANGE",
		"Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -1 instead."},
}

// TestRealTrafficFields checks the rules on top-level fields against the
// corpus: no body a provider answered 200 has a field they call unknown or
// an option they call out of range, not even as a warning (a field the API
// took is not unknown); the 400s for an option out of range are
// rejections with the provider's text.
func TestRealTrafficFields(t *testing.T) {
	isFieldRule := func(r transcript.RuleID) bool {
		return strings.HasSuffix(string(r), "-UNKNOWN-FIELD") || strings.HasSuffix(string(r), "-OPTION-RANGE")
	}
	eachBody(t, "accepted", func(t *testing.T, _ string, _ []byte, _ transcript.Dialect, rep *Report) {
		for _, v := range rep.Violations {
			if isFieldRule(v.Rule) {
				t.Errorf("Check = %s (warning %v), want no field rule on a body the API accepted", v, v.Warning)
			}
		}
	})
	seen := 0
	eachBody(t, "rejected", func(t *testing.T, name string, _ []byte, _ transcript.Dialect, rep *Report) {
		want, ok := fieldRuleOf[name]
		if !ok {
			for _, v := range rep.Violations {
				if isFieldRule(v.Rule) {
					t.Errorf("Check = %s, want no field rule (the recorded error is not one)", v)
				}
			}
			return
		}
		seen++
		if !slices.ContainsFunc(rep.Violations, func(v transcript.Violation) bool {
			return string(v.Rule) == want[0] && !v.Warning && v.ProviderError == want[1]
		}) {
			t.Errorf("Check = %v, want a rejection by %s with %q", rep.Violations, want[0], want[1])
		}
	})
	if seen != len(fieldRuleOf) {
		t.Errorf("found %d of the %d bodies fieldRuleOf names", seen, len(fieldRuleOf))
	}
}
