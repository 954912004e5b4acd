package budget

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer/codec"
	"github.com/toolwire/toolwire/internal/benchcpu"
	"github.com/toolwire/toolwire/internal/orders"
)

type sample struct {
	name string
	cjk  bool // Chinese: the estimate is held to about a token a character
	text string
}

// corpus is the text the estimator was calibrated on, by kind.
func corpus(t testing.TB) []sample {
	t.Helper()
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	return []sample{
		{"English prose", false, read("testdata/corpus/en-prose.txt")},
		{"Chinese prose (modern)", true, read("testdata/corpus/zh-modern.txt")},
		{"Chinese prose (classical)", true, read("testdata/corpus/zh-classical.txt")},
		{"JSON (orders)", false, string(orders.Generate(300, 1))},
		{"Go code", false, read("testdata/corpus/code-go.txt")}, // tool/executor.go as of c6f531f
	}
}

// TestEstimatorError holds the estimator to o200k_base within 10% on
// English, JSON and code, and to about one token per Chinese character;
// -v prints the table of docs/benchmarks.md.
func TestEstimatorError(t *testing.T) {
	for _, enc := range []Encoding{O200kBase, Cl100kBase} {
		exact, err := NewExact(enc)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range corpus(t) {
			want := exact.Count(c.text)
			got := Estimator{}.Count(c.text)
			e := float64(got-want) / float64(want) * 100
			t.Logf("%-12s %-26s bytes %6d exact %6d estimate %6d error %+6.1f%%", enc, c.name, len(c.text), want, got, e)
			switch {
			case c.cjk:
				perChar := float64(got) / float64(utf8.RuneCountInString(c.text))
				if perChar < 0.8 || perChar > 1.2 {
					t.Errorf("Estimator.Count(%s) = %.2f tokens a character, want about 1", c.name, perChar)
				}
			case enc == O200kBase && (e < -10 || e > 10):
				t.Errorf("Estimator.Count(%s) = %d, want within 10%% of %s's %d", c.name, got, enc, want)
			}
		}
	}
}

func TestEstimatorCount(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"hello world", 2},
		{"北京", 2},
		{`{"a":1}`, 5},
		{"12345678", 3},
		{"\xff\xfe", 3},
	}
	for _, tt := range tests {
		if got := (Estimator{}).Count(tt.text); got != tt.want {
			t.Errorf("Estimator{}.Count(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
	if got := (Estimator{Scale: 2}).Count("hello world"); got != 4 {
		t.Errorf("Estimator{Scale: 2}.Count(%q) = %d, want 4", "hello world", got)
	}
}

func TestExactCount(t *testing.T) {
	o, err := NewExact(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewExact(Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	// Known counts (tiktoken): "hello world" is 2 tokens in both.
	for _, tt := range []struct {
		ctr  *Exact
		text string
		want int
	}{
		{o, "hello world", 2},
		{c, "hello world", 2},
		{o, "", 0},
		{o, "\xff", 1}, // invalid UTF-8 counts as U+FFFD
	} {
		if got := tt.ctr.Count(tt.text); got != tt.want {
			t.Errorf("%s.Count(%q) = %d, want %d", tt.ctr.Encoding(), tt.text, got, tt.want)
		}
	}
	if _, err := NewExact("p50k"); err == nil {
		t.Error(`NewExact("p50k") succeeded, want an error`)
	}
	if _, err := NewCounter("nope"); err == nil {
		t.Error(`NewCounter("nope") succeeded, want an error`)
	}
}

// BenchmarkCount measures counting throughput: the exact counters
// against the library they match (tiktoken-go's codec, whose regular
// expression pre-tokenizer they replace) and the estimator, in one run.
func BenchmarkCount(b *testing.B) {
	texts := corpus(b)
	var ctrs []struct {
		name string
		ctr  Counter
	}
	for _, r := range references(b) {
		name := strings.TrimSuffix(string(r.enc), "_base")
		cold := *r.ours.tok
		cold.memos = nil // every piece looked up in the ranks
		ctrs = append(ctrs,
			struct {
				name string
				ctr  Counter
			}{"exact-" + name, r.ours},
			struct {
				name string
				ctr  Counter
			}{"exact-nomemo-" + name, &Exact{enc: r.enc, tok: &cold}},
			struct {
				name string
				ctr  Counter
			}{"library-" + name, libraryCounter{r.codec}})
	}
	ctrs = append(ctrs, struct {
		name string
		ctr  Counter
	}{"estimator", Estimator{}})
	for _, c := range ctrs {
		for _, s := range texts {
			b.Run(c.name+"/"+s.name, func(b *testing.B) {
				b.SetBytes(int64(len(s.text)))
				benchcpu.Loop(b, len(s.text), func() { c.ctr.Count(s.text) })
			})
		}
	}
}

// libraryCounter counts with the library alone, as Exact did before it
// had its own pre-tokenizer.
type libraryCounter struct{ c *codec.Codec }

func (l libraryCounter) Count(s string) int {
	n, _ := l.c.Count(s)
	return n
}
