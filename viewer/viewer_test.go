package viewer

import (
	"io/fs"
	"path"
	"regexp"
	"strings"
	"testing"
)

// The rules every file of the viewer keeps, each a pattern that must
// not match: the server's Content-Security-Policy forbids inline code
// and styles and requests to other origins, and the viewer inserts
// what tools, models and people wrote as text, never as markup.
var forbidden = []rule{
	{".html", "an inline script", regexp.MustCompile(`(?i)<script\b[^>]*>`), regexp.MustCompile(`(?i)\ssrc=`)},
	{".html", "a style element", regexp.MustCompile(`(?i)<style\b`), nil},
	{".html", "a style attribute", regexp.MustCompile(`(?i)\sstyle\s*=`), nil},
	{".html", "an event handler attribute", regexp.MustCompile(`(?i)\son[a-z]+\s*=`), nil},
	{".js", "markup inserted as HTML", regexp.MustCompile(`\b(innerHTML|outerHTML|insertAdjacentHTML|createContextualFragment|DOMParser)\b|document\.write`), nil},
	{".js", "code made from a string", regexp.MustCompile(`\beval\s*\(|new\s+Function\s*\(|set(Timeout|Interval)\s*\(\s*['"` + "`" + `]`), nil},
	{".js", "an inline style", regexp.MustCompile(`\.style\s*=|\.cssText\b|setAttribute\(\s*['"]style`), nil},
	{"", "a request to another origin", regexp.MustCompile(`(?i)\b(?:https?|wss?):|(?:src|href)\s*=\s*["']?//|url\(\s*["']?(?:https?:)?//|@import`), nil},
}

// A rule is a pattern that files ending in ext ("" for all) must not
// match, but where unless matches the text matched.
type rule struct {
	ext, name string
	re        *regexp.Regexp
	unless    *regexp.Regexp
}

// find returns where b breaks r, or nil.
func (r rule) find(b []byte) []int {
	for _, loc := range r.re.FindAllIndex(b, -1) {
		if r.unless == nil || !r.unless.Match(b[loc[0]:loc[1]]) {
			return loc
		}
	}
	return nil
}

// TestFilesKeepThePolicy checks each file against the rules that make
// it safe to show untrusted text and fit to run under the policy.
func TestFilesKeepThePolicy(t *testing.T) {
	n := 0
	err := fs.WalkDir(FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(FS(), p)
		if err != nil {
			return err
		}
		n++
		for _, f := range forbidden {
			if f.ext != "" && path.Ext(p) != f.ext {
				continue
			}
			if loc := f.find(b); loc != nil {
				line := strings.Count(string(b[:loc[0]]), "\n") + 1
				t.Errorf("%s:%d has %s: %q", p, line, f.name, b[loc[0]:loc[1]])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 5 {
		t.Errorf("FS holds %d files, want index.html, style.css and the modules", n)
	}
}

// TestRulesCatch shows that each rule finds what it is for.
func TestRulesCatch(t *testing.T) {
	for _, tc := range []struct{ ext, text, rule string }{
		{".html", `<script>alert(1)</script>`, "an inline script"},
		{".html", `<script type="module">x()</script>`, "an inline script"},
		{".html", `<p style="color:red">`, "a style attribute"},
		{".html", `<img src=x onerror="f()">`, "an event handler attribute"},
		{".js", `el.innerHTML = data;`, "markup inserted as HTML"},
		{".js", `el.insertAdjacentHTML('beforeend', s)`, "markup inserted as HTML"},
		{".js", `setTimeout("go()", 1)`, "code made from a string"},
		{".js", `el.style = 'x'`, "an inline style"},
		{".css", `@import url("https://fonts.example/x.css");`, "a request to another origin"},
		{".html", `<link href="//cdn.example/x.css">`, "a request to another origin"},
	} {
		hit := false
		for _, f := range forbidden {
			if f.name == tc.rule && (f.ext == "" || f.ext == tc.ext) && f.find([]byte(tc.text)) != nil {
				hit = true
			}
		}
		if !hit {
			t.Errorf("the rule %q does not catch %s", tc.rule, tc.text)
		}
	}
	for _, ok := range []string{`<script type="module" src="app.js"></script>`, `<link rel="stylesheet" href="style.css">`} {
		for _, f := range forbidden {
			if f.ext == ".html" || f.ext == "" {
				if f.find([]byte(ok)) != nil {
					t.Errorf("the rule %q refuses %s", f.name, ok)
				}
			}
		}
	}
}

// TestModulesResolve checks that every file index.html and the modules
// name is in FS.
func TestModulesResolve(t *testing.T) {
	refs := regexp.MustCompile(`(?:src|href)="([^"#:]+)"|from '\./([^']+)'`)
	for _, p := range []string{"index.html", "app.js", "list.js", "session.js", "pages.js", "api.js", "dom.js"} {
		b, err := fs.ReadFile(FS(), p)
		if err != nil {
			t.Errorf("FS: %v", err)
			continue
		}
		for _, m := range refs.FindAllStringSubmatch(string(b), -1) {
			name := m[1] + m[2]
			if _, err := fs.Stat(FS(), name); err != nil {
				t.Errorf("%s names %s, which FS does not hold", p, name)
			}
		}
	}
}
