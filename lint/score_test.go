package lint

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/golden"
	"github.com/toolwire/toolwire/tool"
)

func TestCaps(t *testing.T) {
	var props []string
	for i := range 10 {
		props = append(props, fmt.Sprintf(`"note%d": {"type": "string", "description": "A note for the driver, free text"}`, i))
	}
	spec := withParams(`{"type": "object", "properties": {` + strings.Join(props, ",") + `}, "additionalProperties": false}`)
	r := Tool(spec)
	fs := find(r, StringUnconstrained)
	if len(fs) != 10 {
		t.Fatalf("Tool(10 free strings) has %d %s findings, want 10", len(fs), StringUnconstrained)
	}
	var got []int
	total := 0
	for _, f := range fs {
		got = append(got, f.Points)
		total += f.Points
	}
	if want := []int{4, 4, 4, 4, 0, 0, 0, 0, 0, 0}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Tool(10 free strings) points = %v, want %v (cap 16)", got, want)
	}
	if total != 16 || r.Score != 100-sumPoints(r) {
		t.Errorf("Tool(10 free strings).Score = %d with %d for %s, want 100 - %d with 16", r.Score, total, StringUnconstrained, sumPoints(r))
	}
}

func sumPoints(r Report) int {
	n := 0
	for _, f := range r.Findings {
		n += f.Points
	}
	return n
}

func TestScoreFloor(t *testing.T) {
	r := Tool(tool.Spec{Name: "a b", Parameters: jsontext.Value(`{"type": 1}`)})
	if r.Score != 0 {
		t.Errorf("Tool(everything wrong).Score = %d, want 0", r.Score)
	}
	if sumPoints(r) <= 100 {
		t.Errorf("Tool(everything wrong) deducts %d, want more than 100 for this test to mean anything", sumPoints(r))
	}
}

func TestToolsDuplicateNames(t *testing.T) {
	a, b := goodSpec(), goodSpec()
	b.Description = "Returns the hourly weather forecast for one city over the next 24 hours."
	reports := Tools([]tool.Spec{a, b, with(func(s *tool.Spec) { s.Name = "get_hourly" })})
	if len(reports) != 3 {
		t.Fatalf("Tools(3 specs) returned %d reports", len(reports))
	}
	if fs := find(reports[0], NameDuplicate); len(fs) != 0 {
		t.Errorf("Tools()[0] = %v, want no %s on the first of two", fs, NameDuplicate)
	}
	fs := find(reports[1], NameDuplicate)
	if len(fs) != 1 || fs[0].Path != "name" || !strings.Contains(fs[0].Message, "tool 0") {
		t.Errorf("Tools()[1] %s = %v, want one at name naming tool 0", NameDuplicate, fs)
	}
	if reports[1].Score != 80 || reports[2].Score != 100 {
		t.Errorf("Tools() scores = %d, %d, want 80, 100", reports[1].Score, reports[2].Score)
	}
	if got := Tools(nil); len(got) != 0 {
		t.Errorf("Tools(nil) = %v, want none", got)
	}
}

// TestRulesTable checks the rule table itself: unique ids, sane weights.
func TestRulesTable(t *testing.T) {
	seen := map[RuleID]bool{}
	for _, r := range Rules() {
		if seen[r.ID] {
			t.Errorf("Rules() lists %s twice", r.ID)
		}
		seen[r.ID] = true
		if r.Points <= 0 || r.Cap < r.Points || r.Cap > 100 || r.Summary == "" {
			t.Errorf("Rules() %s = %+v, want 0 < Points <= Cap <= 100 and a summary", r.ID, r)
		}
	}
	rs := Rules()
	rs[0].Points = 99
	if Rules()[0].Points == 99 {
		t.Errorf("Rules() returned shared state")
	}
}

// TestDocsListEveryRule keeps docs/lint.md in step with Rules(): every rule
// has a section that states its points and cap.
func TestDocsListEveryRule(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "lint.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Rules() {
		row := regexp.MustCompile(`\|\s*` + "`" + regexp.QuoteMeta(string(r.ID)) + "`" + `\s*\|\s*` + fmt.Sprint(r.Points) + `\s*\|\s*` + fmt.Sprint(r.Cap) + `\s*\|`)
		if !row.Match(doc) {
			t.Errorf("docs/lint.md has no table row | `%s` | %d | %d |", r.ID, r.Points, r.Cap)
		}
		if !strings.Contains(string(doc), "### `"+string(r.ID)+"`") {
			t.Errorf("docs/lint.md has no section ### `%s`", r.ID)
		}
	}
}

// TestExamples pins the reports on examples/tools: good.json scores at
// least 90 for every tool, bad.json low, and the full reports are golden.
func TestExamples(t *testing.T) {
	for _, tt := range []struct {
		file     string
		min, max int
	}{
		{"good.json", 90, 100},
		{"bad.json", 0, 60},
	} {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "examples", "tools", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			specs, _, err := tool.ParseSpecs(data)
			if err != nil {
				t.Fatal(err)
			}
			reports := Tools(specs)
			for _, r := range reports {
				if r.Score < tt.min || r.Score > tt.max {
					t.Errorf("Tool(%s in %s).Score = %d, want %d to %d", r.Tool, tt.file, r.Score, tt.min, tt.max)
				}
			}
			out, err := json.MarshalIndent(reports, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", strings.TrimSuffix(tt.file, ".json")+".golden.json"), append(out, '\n'))
		})
	}
}

// TestGoodExampleIsValid: the good examples are also valid contracts.
func TestGoodExampleIsValid(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "examples", "tools", "good.json"))
	if err != nil {
		t.Fatal(err)
	}
	specs, _, err := tool.ParseSpecs(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		if err := s.Validate(); err != nil {
			t.Errorf("%s.Validate() = %v, want nil", s.Name, err)
		}
	}
}
