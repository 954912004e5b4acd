package budget

import (
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	"github.com/dlclark/regexp2/v2/syntax"
	"github.com/tiktoken-go/tokenizer/codec"
)

// The library's split patterns (codec/o200k_base.go, codec/cl100k_base.go):
// compiling the same text here runs the same generated matcher, which
// the library registered under it.
const (
	o200kPattern  = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// reference is the library: its codec and its pre-tokenizer.
type reference struct {
	enc   Encoding
	codec *codec.Codec
	re    *regexp2.Regexp
	ours  *Exact
}

func references(t testing.TB) []reference {
	t.Helper()
	var out []reference
	for _, r := range []struct {
		enc     Encoding
		c       *codec.Codec
		pattern string
	}{{O200kBase, codec.NewO200kBase(), o200kPattern}, {Cl100kBase, codec.NewCl100kBase(), cl100kPattern}} {
		ours, err := NewExact(r.enc)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, reference{r.enc, r.c, regexp2.MustCompile(r.pattern, regexp2.None), ours})
	}
	return out
}

// pieces returns the library's pre-tokenization of s.
func (r reference) pieces(t testing.TB, s string) []string {
	var out []string
	m, err := r.re.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = r.re.FindNextMatch(m) {
		out = append(out, m.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// ourPieces returns our pre-tokenization of s.
func ourPieces(e *Exact, s string) []string {
	var out []string
	for i := 0; i < len(s); {
		end := e.tok.split(e.tok.cls, s, i)
		if end < 0 {
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
			continue
		}
		out = append(out, s[i:end])
		i = end
	}
	return out
}

// check holds our pieces and count of text to the library's.
func (r reference) check(t *testing.T, text string) {
	t.Helper()
	valid := text
	if !utf8.ValidString(valid) {
		valid = toValid(valid)
	}
	want, err := r.codec.Count(valid)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.ours.Count(text); got != want {
		t.Errorf("%s: Count(%q) = %d, want %d (the library's)", r.enc, text, got, want)
	}
	wantPieces, gotPieces := r.pieces(t, valid), ourPieces(r.ours, valid)
	if strings.Join(gotPieces, "\x00") != strings.Join(wantPieces, "\x00") || len(gotPieces) != len(wantPieces) {
		t.Errorf("%s: pieces of %q = %q, want %q", r.enc, text, gotPieces, wantPieces)
	}
}

// exactCases are the seeds of FuzzExactCount and the table of
// TestExactMatchesLibrary.
var exactCases = []string{
	"", "a", "hello world", "Hello, World!", "  leading and trailing  ",
	// contractions, in every case, and the long s
	"it's", "IT'S", "we'LL", "they're", "I've", "I'm", "he'd", "can't", "ſ'ſ", "x'ſ", "'s", "'ll'", "abc'", "'",
	"don'T", "O'Re", "Rock'n'roll", "''s", "a''ll",
	// digits
	"1", "12", "123", "1234", "1234567", "3.14159", "v1.2.3", "١٢٣٤", "Ⅻ", "½¾",
	// white space runs
	"\n", "\n\n", "\n \n  x", "\n\n  x", "a  b", "a   b", "a\t\tb", " \t\n\r\n x", "   ", "x   ", "\r\n\r\n", "a\u00a0b", "a\u3000\u3000b", "\u2028\n", "\v\f ",
	// punctuation
	"!!!", " ?!", "a/b//c", "://\n", "<|endoftext|>", "--flag=value", "((x))", "a\x7fb", "\x7f\x7f", " \x7f", "\x7fabc",
	// JSON and code
	`{"id":7,"key":"k3","name":"record-000007","category":"cat-07","value":55433,"active":true}`,
	"[{\"a\": [1, 2, 3]}, null, false]\n",
	"func main() {\n\tfmt.Println(\"hi\")\n}\n",
	"if x := f(); x != nil {\n    return err\n}",
	// scripts
	"北京是中国的首都。", "東京は日本の首都です。ひらがなカタカナ", "서울은 한국의 수도입니다", "Привет, мир!", "Γειά σου Κόσμε",
	"مرحبا بالعالم", "שלום עולם", "नमस्ते दुनिया", "สวัสดีชาวโลก", "Ǆemal ǅemal ǆemal", "ꙮ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "𠀀𠀁𠀂",
	// emoji and marks
	"👍🏽", "👨‍👩‍👧‍👦 family", "e\u0301te\u0301", "\u0301abc", "a\u0301B\u0301c", "ÀB\u0300c", "\u0300\u0300", "x\u200dy", "ﷺ", "︎",
	// mixed
	"The 北京 Olympics in 2008 cost $42.5B 🎉", "CamelCaseWords and HTTPServer and iPhone", "ABCdef GHI jkLMno",
	"MAXIMUM_VALUE=100;", "x²+y²", "naïve café résumé",
	// invalid UTF-8
	"\xff", "a\xffb", "\xc3\x28", "\xe2\x82", "ok\xf0\x9f\x98", "\xed\xa0\x80",
}

func TestExactMatchesLibrary(t *testing.T) {
	for _, r := range references(t) {
		for _, s := range exactCases {
			r.check(t, s)
		}
		for _, c := range corpus(t) {
			r.check(t, c.text)
		}
	}
}

// FuzzExactCount holds the exact counter to the library on any text:
// the same pieces, the same count.
func FuzzExactCount(f *testing.F) {
	for _, s := range exactCases {
		f.Add(s)
	}
	refs := references(f)
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range refs {
			r.check(t, s)
		}
	})
}

// TestClasses holds the character classes to regexp2's definitions, for
// every rune, and the table to the Unicode tables.
func TestClasses(t *testing.T) {
	// The sets as regexp2cg generated them (codec/regexp.gen.go).
	prefix := syntax.NewCharSetRuntime("\x01\x02\x00\x00\x00\x02\x00\x00\x00\n\n\r\r\x01L\x01N")
	punct := syntax.NewCharSetRuntime("\x01\x00\x00\x00\x00\x03\x00\x00\x00\x01 \x01L\x01N")
	tab := newClasses()
	for r := rune(0); r <= utf8.MaxRune; r++ {
		c := classOf(r)
		if r >= 128 {
			if got, want := c&cPrefix != 0, prefix.CharIn(r); got != want {
				t.Errorf("classOf(%U) prefix = %v, want %v", r, got, want)
			}
			if got, want := c&cPunct != 0, punct.CharIn(r); got != want {
				t.Errorf("classOf(%U) punct = %v, want %v", r, got, want)
			}
		}
		if r < 0x10000 && tab[r] != c {
			t.Errorf("classes[%U] = %b, want %b", r, tab[r], c)
		}
	}
}

// TestSplitEveryClass splits each rune where the classes change, and a
// sample of the others, in contexts that exercise every alternative.
func TestSplitEveryClass(t *testing.T) {
	refs := references(t)
	var b strings.Builder
	flush := func() {
		for _, r := range refs {
			r.check(t, b.String())
		}
		b.Reset()
	}
	prev := uint8(0xff)
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		c := classOf(r)
		if c == prev && r%211 != 0 {
			continue
		}
		prev = c
		x := string(r)
		for _, ctx := range []string{x, "a" + x, " " + x + "b", x + "'s", "A" + x + "a", "1" + x + x, "\n" + x + " ", x + "/\n", "\t" + x} {
			b.WriteString(ctx)
		}
		b.WriteString("|")
		if b.Len() > 4096 {
			flush()
		}
	}
	flush()
}

// TestExactConcurrent counts from many goroutines at once, as the
// executor's parallel calls do: each count takes its own memo (run it
// with -race).
func TestExactConcurrent(t *testing.T) {
	ex, err := NewExact(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	texts := corpus(t)
	want := make([]int, len(texts))
	for i, s := range texts {
		want[i] = ex.Count(s.text)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range 20 {
				i := (g + k) % len(texts)
				if got := ex.Count(texts[i].text); got != want[i] {
					t.Errorf("Count(%s) from goroutine %d = %d, want %d", texts[i].name, g, got, want[i])
				}
			}
		})
	}
	wg.Wait()
}
