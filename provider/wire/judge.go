package wire

import (
	"hash/maphash"
	"slices"
	"sync"

	"github.com/toolwire/toolwire/transcript"
)

// A Judge gives the verdict of [ViolationsFor] for the request bodies of
// conversations, at the cost of what each body adds to the one before.
// An agent sends its whole history with every request, so a body is
// mostly the bytes of an earlier one: a Judge remembers the messages it
// decoded from recent bodies, and when a body starts with the same bytes
// as one of them, up to the end of its messages, it decodes only the
// messages after those and the rest of the body (tools, options), and
// checks the whole conversation as Violations does. The verdict is the
// same, violation for violation (TestJudgeAgrees holds it to Violations
// on every split of every test body). A body that starts like none of
// them is judged whole, and remembered.
//
// It remembers the bodies' messages as the skim reads them (each long
// text as two characters), so what it holds is a fraction of the bodies'
// size (about 512 bytes a message, and the messages' short texts); it
// keeps at most about max bytes of them, forgetting the least recently
// used first. It continues the bodies of every dialect whose message
// array is an array (a Gemini body may give one content object: such a
// body is judged whole).
//
// A Judge is safe for concurrent use. Two bodies are taken for the same
// start when a 64-bit hash of it (hash/maphash, with a seed of the
// process's own) is the same: a chance of 2⁻⁶⁴ per body, which no sender
// can steer.
type Judge struct {
	seed maphash.Seed
	max  int

	mu     sync.Mutex
	recent []*prefix // least recently used first
	size   int       // the bytes held by recent
	stats  JudgeStats
}

// JudgeStats counts what a Judge did.
type JudgeStats struct {
	// Continued counts the bodies judged from where an earlier one left
	// off, Whole those judged whole.
	Continued, Whole int
}

// A prefix is the start of a body a Judge read: its bytes up to the end of
// its message array's last element, which the next body of the
// conversation repeats.
type prefix struct {
	d    transcript.Dialect
	open int    // the offset just after the message array's '['
	last int    // the offset just after its last element
	sum  uint64 // the hash of the body's first last bytes
	edge uint64 // the hash of the edgeLen bytes before last, to find it fast
	body codecBody
	size int // about the bytes body holds: see heldBy
}

// elemSize is about the bytes a decoded message of a skimmed body holds
// besides its bytes: its llm form and the codec's record of it.
const elemSize = 512

// heldBy returns about the bytes the body decoded from short, a skimmed
// copy with elems messages, holds.
func heldBy(short []byte, elems int) int { return len(short) + elems*elemSize }

// edgeLen is how many bytes before the end of a prefix tell, most of the
// time, whether a body could start with it: the end of its last message,
// which holds ids and texts of its own.
const edgeLen = 64

// maxPrefixes bounds how many prefixes a Judge compares a body with.
const maxPrefixes = 1024

// NewJudge returns a Judge that remembers at most max bytes of decoded
// messages (see [Judge]); max ≤ 0 remembers nothing, as Violations.
func NewJudge(max int) *Judge { return &Judge{seed: maphash.MakeSeed(), max: max} }

// Stats returns what j did so far.
func (j *Judge) Stats() JudgeStats {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.stats
}

// Violations returns what [ViolationsFor] returns for data, a request body
// of dialect d for model (as its URL names it, for a body that does not:
// Gemini's; "" otherwise). data is not held after it returns.
func (j *Judge) Violations(data []byte, d transcript.Dialect, model string) ([]transcript.Violation, error) {
	c := codecs[d]
	texts, ok := textPaths[d]
	if j == nil || j.max <= 0 || c.after == nil || !ok {
		return violations(data, d, skimLongest, model)
	}
	var h maphash.Hash
	h.SetSeed(j.seed)
	if p := j.find(data, d, &h); p != nil {
		if vs, ok := j.continued(p, data, model, c, &texts, &h); ok {
			return vs, nil
		}
		h.Reset()
	}
	j.count(func(s *JudgeStats) { s.Whole++ })
	at := arrayAt{}
	short, ok := skim(data, &texts, skimLongest, &at)
	if !ok || at.found != 1 {
		return verdictOf(data, short, d, model) // nothing to remember
	}
	if len(short) > 0 && &short[0] == &data[0] {
		short = slices.Clone(data) // the decoded body aliases what it reads
	}
	body, err := c.decode(short)
	if err != nil {
		return verdictOf(data, nil, d, model) // the error of the body as it is
	}
	vs := (&Body{dialect: d, c: body, model: model}).Check()
	h.Write(data[:at.last])
	j.remember(nil, &prefix{d: d, open: at.open, last: at.last, sum: h.Sum64(),
		edge: j.edge(data, at.last), body: body, size: heldBy(short, at.elems)})
	return vs, nil
}

// find returns the longest prefix of dialect d that data starts with, or
// nil; h has hashed that prefix after.
func (j *Judge) find(data []byte, d transcript.Dialect, h *maphash.Hash) *prefix {
	var maybe []*prefix
	j.mu.Lock()
	for _, p := range j.recent {
		if p.d == d && p.last <= len(data) && j.edge(data, p.last) == p.edge {
			maybe = append(maybe, p)
		}
	}
	j.mu.Unlock()
	slices.SortFunc(maybe, func(a, b *prefix) int { return b.last - a.last })
	for _, p := range maybe {
		h.Reset()
		h.Write(data[:p.last])
		if h.Sum64() == p.sum {
			return p
		}
	}
	return nil
}

// edge returns the hash of the edgeLen bytes of data before offset last.
func (j *Judge) edge(data []byte, last int) uint64 {
	return maphash.Bytes(j.seed, data[max(0, last-edgeLen):last])
}

// continued judges data, which starts with p, by decoding what follows
// p's messages after them; h has hashed p. It reports false when data
// does not continue p as a body (the element after p's last is not
// there, or it does not decode): the caller judges it whole.
func (j *Judge) continued(p *prefix, data []byte, model string, c codec, texts *texts, h *maphash.Hash) ([]transcript.Violation, bool) {
	rest := p.last
	for rest < len(data) && isSpace(data[rest]) {
		rest++
	}
	switch {
	case rest < len(data) && data[rest] == ',':
		rest++
	case rest < len(data) && data[rest] == ']':
	default:
		return nil, false
	}
	// The body without p's messages: what comes before them, then what
	// follows them.
	cut := make([]byte, 0, p.open+len(data)-rest)
	cut = append(append(cut, data[:p.open]...), data[rest:]...)
	at := arrayAt{}
	short, ok := skim(cut, texts, skimLongest, &at)
	if !ok || at.found != 1 || at.open != p.open {
		return nil, false
	}
	body, err := c.after(p.body, short)
	if err != nil {
		return nil, false
	}
	vs := (&Body{dialect: p.d, c: body, model: model}).Check()
	last := p.last
	if at.last > at.open {
		last = rest + at.last - p.open // the offset in data of the end of the last new message
	}
	h.Write(data[p.last:last])
	j.count(func(s *JudgeStats) { s.Continued++ })
	j.remember(p, &prefix{d: p.d, open: p.open, last: last, sum: h.Sum64(),
		edge: j.edge(data, last), body: body, size: p.size + heldBy(short, at.elems)})
	return vs, true
}

// remember adds p, in place of old (the prefix it continues, which its
// conversation has left behind) when old is not nil, and forgets the least
// recently used prefixes over j's bounds.
func (j *Judge) remember(old, p *prefix) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if i := slices.Index(j.recent, old); old != nil && i >= 0 {
		j.recent = slices.Delete(j.recent, i, i+1)
		j.size -= old.size
	}
	j.recent = append(j.recent, p)
	j.size += p.size
	for len(j.recent) > 1 && (j.size > j.max || len(j.recent) > maxPrefixes) {
		j.size -= j.recent[0].size
		j.recent = slices.Delete(j.recent, 0, 1)
	}
}

func (j *Judge) count(f func(*JudgeStats)) {
	j.mu.Lock()
	f(&j.stats)
	j.mu.Unlock()
}
