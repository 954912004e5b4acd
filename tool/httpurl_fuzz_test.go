package tool

import (
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolwire/toolwire/toolresult"
)

// fuzzTemplates are the HTTP binding URLs FuzzHTTPRequest builds calls
// of: placeholders in whole and partial path segments, side by side, in
// query values between fixed parameters, with no path, with user
// information and an escaped slash in the fixed prefix.
var fuzzTemplates = []string{
	"https://api.example.com:8443/api/v1/users/{org}/{team}/{id}/profile?tenant=acme&q={q}&scope=public",
	"http://127.0.0.1:9000/files/{id}.json?v=2&q={q}",
	"https://api.example.com/a/{org}{team}/b/{id}?q=x{q}y&tenant=acme#top",
	"https://api.example.com?q={q}&tenant=acme&tenant=beta",
	"https://user:pw@api.example.com/v1%2Fx/{id}?q={q}",
}

// plain matches values that no URL rule refuses in a path.
var plain = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// FuzzHTTPRequest: whatever the arguments, a call's URL keeps the
// template's scheme, host and port, its fixed path prefix (as written,
// and as a path-cleaning server reads it) and its fixed query values;
// no path segment reads "." or ".." once decoded; a query placeholder
// stays one value; or the call is refused with invalid_arguments. Plain
// values are never refused.
func FuzzHTTPRequest(f *testing.F) {
	attacks := []string{"..", ".", "", "a/../../..", `..\..`, "%2e%2e", "%2E%2E", "%252e%252e", "..%2f..%2fadmin",
		"shoes&scope=internal&admin=true", "a?b#c", "x@evil.test", "//evil.test", "http://evil.test/", ":443", "a b/c", "日本", "\x00\r\n"}
	for i, a := range attacks {
		tpl := uint8(i % len(fuzzTemplates))
		f.Add(tpl, false, false, a, "dev", "42", a, "", "")
		f.Add(tpl, true, true, "acme", a, a, "x", "tenant", "other-co")
		f.Add(tpl, false, true, "acme", "dev", "42", a, "scope", "internal")
		f.Add(tpl, false, true, ".", ".", a, "q", "admin", a)
	}
	f.Add(uint8(0), false, false, "acme", "dev", "42", "shoes", "", "")
	f.Add(uint8(2), false, false, ".", ".", "x", "q", "", "")

	// tools[template][post][open]
	tools := make([][2][2]*httpTool, len(fuzzTemplates))
	for i, u := range fuzzTemplates {
		for post := range 2 {
			for open := range 2 {
				params := `{"type":"object","properties":{"org":{"type":"string"},"team":{"type":"string"},"id":{"type":"string"},"q":{"type":"string"},"tenant":{"type":"string"},"scope":{"type":"string"}},"required":["org","team","id","q"]`
				if open == 1 {
					params += `,"additionalProperties":true`
				}
				method := "GET"
				if post == 1 {
					method = "POST"
				}
				tl, err := NewHTTP(Spec{Name: "f", Parameters: jsontext.Value(params + "}"), HTTP: &HTTPBinding{Method: method, URL: u}}, nil)
				if err != nil {
					f.Fatalf("NewHTTP(%s) = %v", u, err)
				}
				tools[i][post][open] = tl.(*httpTool)
			}
		}
	}

	f.Fuzz(func(t *testing.T, tpl uint8, post, open bool, org, team, id, q, k, v string) {
		tl := tools[int(tpl)%len(tools)][b2i(post)][b2i(open)]
		args := map[string]any{"org": org, "team": team, "id": id, "q": q}
		if k != "" {
			args[k] = v // it may replace a placeholder's value
		}
		org, team, id, q = scalar(args["org"]), scalar(args["team"]), scalar(args["id"]), scalar(args["q"])
		r, err := tl.request(args)
		if err != nil {
			var te *Error
			if !errors.As(err, &te) || te.Type != toolresult.InvalidArguments {
				t.Fatalf("request(%q) = %v, want an invalid_arguments refusal", args, err)
			}
			if k == "" && plain.MatchString(org) && plain.MatchString(team) && plain.MatchString(id) {
				t.Fatalf("request(%q) refused plain values: %v", args, err)
			}
			return
		}
		tp := tl.url
		raw := fuzzTemplates[int(tpl)%len(fuzzTemplates)]
		want, err := url.Parse(placeholderPattern.ReplaceAllString(raw, "1"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := url.Parse(r.url)
		if err != nil {
			t.Fatalf("request(%q) = URL %q that does not parse: %v", args, r.url, err)
		}
		if got.Scheme != want.Scheme || got.Host != want.Host || got.User.String() != want.User.String() {
			t.Fatalf("request(%q) = %s, want scheme, host and port of %s", args, r.url, raw)
		}
		fixedPath := raw[len(tp.origin):]
		if i := strings.IndexAny(fixedPath, "{?#"); i >= 0 {
			fixedPath = fixedPath[:i]
		}
		if !strings.HasPrefix(r.url, tp.origin+fixedPath) {
			t.Fatalf("request(%q) = %s, want it to start with %s", args, r.url, tp.origin+fixedPath)
		}
		if p := cleanPath(got.EscapedPath()); !under(p, tp.prefix) {
			t.Fatalf("request(%q) = %s, which a path-cleaning server reads as %s, outside %s", args, r.url, p, tp.prefix)
		}
		for _, seg := range strings.Split(got.EscapedPath(), "/") {
			s, err := url.PathUnescape(seg)
			if err != nil {
				t.Fatalf("request(%q) = %s: path segment %q does not decode", args, r.url, seg)
			}
			for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '\\' }) {
				if part == "." || part == ".." {
					t.Fatalf("request(%q) = %s: path segment %q reads as a %q segment to a server that decodes it", args, r.url, seg, part)
				}
			}
		}
		query := got.Query()
		for key, vals := range tp.fixed {
			if !slices.Equal(query[key], vals) {
				t.Fatalf("request(%q) = %s: query %q = %q, want the fixed %q", args, r.url, key, query[key], vals)
			}
		}
		if strings.Contains(raw, "q={q}") && !slices.Equal(query["q"], []string{q}) {
			t.Fatalf("request(%q) = %s: query q = %q, want [%q]", args, r.url, query["q"], q)
		}
		if int(tpl)%len(fuzzTemplates) == 0 {
			segs := strings.Split(got.EscapedPath(), "/")
			for i, want := range []string{org, team, id} {
				if s, err := url.PathUnescape(segs[4+i]); err != nil || s != want {
					t.Fatalf("request(%q) = %s: path segment %d reads %q, want %q", args, r.url, 4+i, s, want)
				}
			}
		}
		if post {
			var body map[string]any
			if err := json.Unmarshal(r.body, &body); err != nil {
				t.Fatalf("request(%q) body %s: %v", args, r.body, err)
			}
			for key := range body {
				if tp.queryKeys[key] {
					t.Fatalf("request(%q) body %s sets the URL's query parameter %q", args, r.body, key)
				}
			}
		}
	})
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
