package listen

import (
	"net/http/httptest"
	"testing"
)

func TestCheckAddr(t *testing.T) {
	for _, tc := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:8787", "", true},
		{"127.0.0.9:8787", "", true},
		{"[::1]:8787", "", true},
		{"localhost:8787", "", true},
		{":8787", "", false},
		{"0.0.0.0:8787", "", false},
		{"192.0.2.1:8787", "", false},
		{"0.0.0.0:8787", "t", true},
		{"8787", "t", false},
	} {
		if err := CheckAddr(tc.addr, tc.token); (err == nil) != tc.ok {
			t.Errorf("CheckAddr(%q, %q) = %v, want ok %v", tc.addr, tc.token, err, tc.ok)
		}
	}
}

func TestToken(t *testing.T) {
	if !(Token{}).Match("anything") || (Token{}).Set() {
		t.Error("the zero Token must match every value and not be set")
	}
	tok := NewToken("s3cret")
	for _, tc := range []struct {
		got  string
		want bool
	}{{"s3cret", true}, {" s3cret\n", true}, {"s3cre", false}, {"", false}, {"s3cret2", false}} {
		if got := tok.Match(tc.got); got != tc.want {
			t.Errorf("Match(%q) = %v, want %v", tc.got, got, tc.want)
		}
	}
	if NewToken("") != (Token{}) {
		t.Error(`NewToken("") is a token`)
	}
}

func TestBrowser(t *testing.T) {
	for _, tc := range []struct {
		name    string
		token   bool
		trusted []string
		method  string
		host    string
		headers map[string]string
		want    string // "", "host" or "origin"
	}{
		{"a client that is not a browser", false, nil, "POST", "127.0.0.1:8787", nil, ""},
		{"localhost", false, nil, "POST", "localhost:8787", nil, ""},
		{"::1", false, nil, "POST", "[::1]:8787", nil, ""},
		{"a rebound name without a token", false, nil, "GET", "evil.example:8787", nil, "host"},
		{"a rebound name with a token", true, nil, "GET", "evil.example:8787", nil, ""},
		{"a page of another site", false, nil, "POST", "127.0.0.1:8787", map[string]string{"Sec-Fetch-Site": "cross-site"}, "origin"},
		{"a page of the same site on another port", false, nil, "POST", "127.0.0.1:8787", map[string]string{"Sec-Fetch-Site": "same-site"}, "origin"},
		{"an old browser's Origin", true, nil, "POST", "gw.example", map[string]string{"Origin": "https://evil.example"}, "origin"},
		{"a page of the same origin", false, nil, "POST", "127.0.0.1:8787", map[string]string{"Sec-Fetch-Site": "same-origin"}, ""},
		{"a read from another site", false, nil, "GET", "127.0.0.1:8787", map[string]string{"Sec-Fetch-Site": "cross-site"}, ""},
		{"a trusted origin", false, []string{"https://app.example"}, "POST", "127.0.0.1:8787", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://app.example"}, ""},
		{"every origin trusted", false, []string{"*"}, "POST", "127.0.0.1:8787", map[string]string{"Sec-Fetch-Site": "cross-site"}, ""},
		{"every origin trusted, still loopback only", false, []string{"*"}, "POST", "evil.example", nil, "host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := NewBrowser(tc.token, tc.trusted)
			if err != nil {
				t.Fatal(err)
			}
			r := httptest.NewRequest(tc.method, "http://"+tc.host+"/v1/messages", nil)
			for k, v := range tc.headers {
				r.Header.Set(k, v)
			}
			got := ""
			switch no := b.Check(r); {
			case no == nil:
			case no.Host != "":
				got = "host"
			case no.Origin != "":
				got = "origin"
			default:
				t.Fatal("a refusal that says nothing")
			}
			if got != tc.want {
				t.Fatalf("refused for %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := NewBrowser(false, []string{"not an origin"}); err == nil {
		t.Error("a trusted origin that is not one was taken")
	}
}
