package lint

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Description length thresholds, in weighted characters (see textLen).
const (
	minToolDescription  = 30 // "Get the current weather for a city" is 34
	minParamDescription = 12 // "The city name" is 13; "城市名称" is 12
)

// textLen measures how much a text says: runes, with whitespace runs
// counted once and each CJK character counted as 3, since one Chinese,
// Japanese or Korean character carries about as much as three Latin
// letters ("获取城市天气" ≈ "get city weather").
func textLen(s string) int {
	n := 0
	space := true
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			if !space {
				n++
			}
			space = true
			continue
		case isCJK(r):
			n += 3
		default:
			n++
		}
		space = false
	}
	if space && n > 0 {
		n-- // a trailing space run
	}
	return n
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// vagueWords are words that tell the model nothing precise. A description
// that leans on them leaves the model to guess.
var vagueWords = map[string]bool{
	"related": true, "some": true, "etc": true, "stuff": true, "thing": true,
	"things": true, "various": true, "misc": true, "miscellaneous": true,
	"whatever": true, "something": true,
}

// vaguePhrases are multi-word vague phrases, as lower-case word sequences.
var vaguePhrases = [][]string{{"and", "so", "on"}, {"and", "more"}, {"and", "the", "like"}}

// vagueCJK are vague Chinese terms matched as substrings. "相关" is not
// matched in "相关性" (relevance), nor "等" ("etc.") in the words of
// notEtc, such as "等待" (wait) or "相等" (equal).
var vagueCJK = []string{"相关", "一些", "等等", "各种", "某些", "之类", "什么的", "等"}

// notEtc are words in which 等 does not mean "etc.".
var notEtc = map[string]bool{
	"等待": true, "等于": true, "等级": true, "等同": true, "等效": true, "等号": true,
	"等候": true, "等价": true, "等比": true, "等差": true, "等距": true, "等分": true,
	"等式": true, "平等": true, "相等": true, "同等": true, "对等": true, "不等": true,
	"高等": true, "中等": true, "初等": true, "一等": true, "二等": true, "头等": true,
	"上等": true, "次等": true, "均等": true, "优等": true,
}

// vagueTerms returns the vague words and phrases in s, each once, in
// order of first appearance.
func vagueTerms(s string) []string {
	type hit struct {
		at   int
		term string
	}
	var hits []hit
	seen := map[string]bool{}
	note := func(at int, t string) {
		if !seen[t] {
			seen[t] = true
			hits = append(hits, hit{at, t})
		}
	}
	words, starts := latinWords(s)
	for i, w := range words {
		if vagueWords[w] {
			note(starts[i], w)
		}
		for _, p := range vaguePhrases {
			if i+len(p) <= len(words) && equalWords(words[i:i+len(p)], p) {
				note(starts[i], strings.Join(p, " "))
			}
		}
	}
	for _, t := range vagueCJK {
		if t == "等" && seen["等等"] {
			continue
		}
		for i := 0; ; {
			j := strings.Index(s[i:], t)
			if j < 0 {
				break
			}
			at := i + j
			i = at + len(t)
			next, _ := utf8.DecodeRuneInString(s[i:])
			prev, _ := utf8.DecodeLastRuneInString(s[:at])
			if t == "相关" && next == '性' || t == "等" && (notEtc[string(prev)+t] || notEtc[t+string(next)]) {
				continue
			}
			note(at, t)
			break
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].at < hits[b].at })
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.term
	}
	return out
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// latinWords splits s into lower-case runs of ASCII letters, and returns
// the byte offset of each.
func latinWords(s string) (words []string, starts []int) {
	start := -1
	for i := 0; i <= len(s); i++ {
		letter := i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z')
		if letter && start < 0 {
			start = i
		}
		if !letter && start >= 0 {
			words = append(words, strings.ToLower(s[start:i]))
			starts = append(starts, start)
			start = -1
		}
	}
	return words, starts
}

// identWords splits an identifier into lower-case words at _, -, ., spaces
// and camelCase boundaries: "createUserAndSendEmail" → create user and
// send email; "HTTPServer_id" → http server id.
func identWords(s string) []string {
	var out []string
	rs := []rune(s)
	start := 0
	flush := func(end int) {
		if end > start {
			out = append(out, strings.ToLower(string(rs[start:end])))
		}
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			start = i + 1
			continue
		}
		if i > start && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && nextLower {
				flush(i)
				start = i
			}
		}
	}
	flush(len(rs))
	return out
}

// abbreviations maps common abbreviations in parameter names to the word
// they stand for. The list is documented in docs/lint.md.
var abbreviations = map[string]string{
	"acct": "account", "acc": "account", "addr": "address", "amt": "amount",
	"attr": "attribute", "bal": "balance", "cfg": "config", "conf": "config",
	"cnt": "count", "ctx": "context", "cur": "current", "curr": "currency",
	"ccy": "currency", "cust": "customer", "dept": "department",
	"desc": "description", "dest": "destination", "dst": "destination",
	"dir": "directory", "dob": "date_of_birth", "doc": "document",
	"dt": "date", "emp": "employee", "err": "error", "evt": "event",
	"fname": "first_name", "lname": "last_name", "fn": "function",
	"idx": "index", "img": "image", "inv": "invoice", "len": "length",
	"loc": "location", "mgr": "manager", "msg": "message", "nbr": "number",
	"no": "number", "num": "number", "obj": "object", "opt": "option",
	"opts": "options", "org": "organization", "param": "parameter",
	"params": "parameters", "pct": "percent", "pos": "position",
	"prev": "previous", "prod": "product", "pwd": "password",
	"qty": "quantity", "ref": "reference", "req": "request",
	"res": "result", "resp": "response", "src": "source", "str": "string",
	"tmp": "temporary", "ts": "timestamp", "tz": "time_zone",
	"txn": "transaction", "trx": "transaction", "usr": "user",
	"val": "value", "ver": "version",
}

// acronyms are well-known all-consonant words the abbreviation heuristic
// must not flag.
var acronyms = map[string]bool{
	"bcc": true, "cc": true, "cdn": true, "crm": true, "css": true, "csv": true,
	"db": true, "dns": true, "ftp": true, "gb": true, "gps": true, "html": true,
	"http": true, "https": true, "jpg": true, "jwt": true, "kb": true,
	"mb": true, "mfa": true, "ms": true, "pdf": true, "png": true, "px": true,
	"rgb": true, "sdk": true, "sku": true, "sms": true, "smtp": true,
	"sql": true, "ssh": true, "ssl": true, "ssn": true, "svg": true,
	"tb": true, "tcp": true, "tls": true, "ttl": true, "txt": true,
	"vm": true, "www": true, "xml": true, "cvv": true, "cpu": true,
	"gpu": true, "pk": true,
}

// abbreviated returns, for each abbreviated word of a parameter name, the
// word and its expansion ("" when only the heuristic found it).
func abbreviated(words []string) (found [][2]string) {
	for _, w := range words {
		if exp, ok := abbreviations[w]; ok {
			found = append(found, [2]string{w, exp})
			continue
		}
		if looksAbbreviated(w) {
			found = append(found, [2]string{w, ""})
		}
	}
	return found
}

// looksAbbreviated is the heuristic for words not in the list: two to five
// ASCII letters with no vowel (y counts as one), like "usr", "cnt" or
// "mgmt", that are not well-known acronyms.
func looksAbbreviated(w string) bool {
	if len(w) < 2 || len(w) > 5 || acronyms[w] {
		return false
	}
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c < 'a' || c > 'z':
			return false
		case strings.IndexByte("aeiouy", c) >= 0:
			return false
		}
	}
	return true
}

// expandName rewrites a parameter name with each listed abbreviation
// spelled out, keeping the name's style: snake_case, kebab-case or
// camelCase.
func expandName(name string, words []string) string {
	var parts []string
	for _, w := range words {
		if exp, ok := abbreviations[w]; ok {
			w = exp
		}
		parts = append(parts, strings.Split(w, "_")...)
	}
	camel := !strings.ContainsAny(name, "_-. ") && strings.ToLower(name) != name
	if camel {
		first, _ := utf8.DecodeRuneInString(name)
		for i := range parts {
			if i > 0 || unicode.IsUpper(first) {
				parts[i] = upperFirst(parts[i])
			}
		}
		return strings.Join(parts, "")
	}
	sep := "_"
	if strings.Contains(name, "-") && !strings.Contains(name, "_") {
		sep = "-"
	}
	return strings.Join(parts, sep)
}

// actionVerbs are verbs that name an action. Words that are as often nouns
// (address, email, order, post, book, report, file, log, schedule) are left
// out so that "get_name_and_address" is not taken for two actions.
var actionVerbs = map[string]bool{
	"add": true, "append": true, "approve": true, "archive": true,
	"assign": true, "calculate": true, "call": true, "cancel": true,
	"charge": true, "check": true, "close": true, "commit": true,
	"compute": true, "convert": true, "copy": true, "create": true,
	"delete": true, "deploy": true, "download": true, "edit": true,
	"enable": true, "disable": true, "execute": true, "export": true,
	"fetch": true, "find": true, "forward": true, "generate": true,
	"get": true, "import": true, "insert": true, "invite": true,
	"list": true, "load": true, "lookup": true, "merge": true, "move": true,
	"notify": true, "open": true, "parse": true, "pay": true,
	"publish": true, "push": true, "put": true, "read": true, "refund": true,
	"register": true, "reject": true, "remove": true, "rename": true,
	"reply": true, "reset": true, "restart": true, "retrieve": true,
	"run": true, "save": true, "search": true, "send": true, "set": true,
	"share": true, "start": true, "stop": true, "store": true,
	"submit": true, "summarize": true, "sync": true, "transfer": true,
	"translate": true, "update": true, "upload": true, "upsert": true,
	"validate": true, "verify": true, "write": true,
}

// sideEffectVerbs are the verbs that, after "and" in a description, mark
// a second action rather than a description of the result ("searches
// flights and returns the cheapest" is one action).
var sideEffectVerbs = map[string]bool{
	"send": true, "notify": true, "delete": true, "remove": true,
	"charge": true, "create": true, "update": true, "publish": true,
	"pay": true, "transfer": true, "cancel": true, "refund": true,
	"invite": true, "upload": true, "deploy": true, "write": true,
	"save": true, "submit": true, "email": true, "post": true,
}

// verbBase returns the base form of an English verb in the third person
// ("sends" → "send", "notifies" → "notify", "pushes" → "push").
func verbBase(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 3:
		return w[:len(w)-1]
	}
	return w
}

// compoundName finds two actions joined by "and" or "then" in a tool name
// and returns the joining word and the two halves, as snake_case names.
func compoundName(name string) (joiner, first, second string, ok bool) {
	words := identWords(name)
	for i := 1; i < len(words)-1; i++ {
		if words[i] != "and" && words[i] != "then" {
			continue
		}
		j := i + 1
		if words[i] == "and" && words[j] == "then" {
			j++
		}
		if j < len(words) && actionVerbs[words[j]] {
			return strings.Join(words[i:j], " "), strings.Join(words[:i], "_"), strings.Join(words[j:], "_"), true
		}
	}
	return "", "", "", false
}

// compoundDescription finds a second action in a description: "then"
// followed by a verb, or "and" followed by a verb with a side effect. It
// returns the phrase found.
func compoundDescription(s string) (string, bool) {
	words, _ := latinWords(s)
	for i := 0; i < len(words)-1; i++ {
		next := verbBase(words[i+1])
		switch words[i] {
		case "then":
			if actionVerbs[next] || sideEffectVerbs[next] {
				return words[i] + " " + words[i+1], true
			}
		case "and":
			if sideEffectVerbs[next] {
				return words[i] + " " + words[i+1], true
			}
		}
	}
	for _, t := range []string{"然后", "并且发送", "并发送", "同时发送"} {
		if strings.Contains(s, t) {
			return t, true
		}
	}
	return "", false
}

// upperFirst returns s with its first rune in upper case.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
