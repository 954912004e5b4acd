// Package orders generates the fixed data sets that the observation
// pipeline's tests and benchmarks shape: order records with Chinese and
// English fields, nested addresses, nulls and empty values. The output
// depends only on the arguments, so a data set can be regenerated
// byte for byte (toolresult/testdata/orders-30000.json is Generate(30000, 1)).
package orders

import (
	"math/rand/v2"
	"strconv"
)

var (
	names    = []string{"王芳", "李伟", "张敏", "刘洋", "陈静", "Alice Martin", "Bob Smith", "Chloé Durand", "David Kim", "Emma Rossi"}
	cities   = []string{"北京", "上海", "广州", "深圳", "成都", "Paris", "Berlin", "London", "New York", "Tokyo"}
	statuses = []string{"pending", "paid", "shipped", "delivered", "cancelled", "refunded"}
	notes    = []string{"", "", "", "请尽快发货", "leave at the door", "送货前请电话联系", "gift wrap"}
)

// Generate returns n order records as one compact JSON array. seed picks
// the data; the same n and seed always give the same bytes.
func Generate(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	b := make([]byte, 0, n*112+2)
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendRecord(b, r, i+1)
	}
	return append(b, ']')
}

func appendRecord(b []byte, r *rand.Rand, id int) []byte {
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	b = append(b, `{"id":"o-`...)
	b = append(b, pad(id)...)
	b = append(b, `","status":"`...)
	b = append(b, pick(statuses)...)
	b = append(b, `","customer":"`...)
	b = append(b, pick(names)...)
	b = append(b, `","vip":`...)
	switch r.IntN(3) {
	case 0:
		b = append(b, "null"...)
	case 1:
		b = append(b, "true"...)
	default:
		b = append(b, "false"...)
	}
	b = append(b, `,"address":{"city":"`...)
	b = append(b, pick(cities)...)
	b = append(b, `"},"total":`...)
	b = strconv.AppendFloat(b, float64(r.IntN(100000))/100, 'f', -1, 64)
	b = append(b, `,"note":`...)
	if r.IntN(4) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b = append(b, pick(notes)...)
		b = append(b, '"')
	}
	if r.IntN(8) == 0 {
		b = append(b, `,"tags":[]`...)
	}
	b = append(b, '}')
	return b
}

func pad(n int) string {
	s := strconv.Itoa(n)
	for len(s) < 5 {
		s = "0" + s
	}
	return s
}

var (
	topics = []string{"context windows", "tool calling", "上下文压缩", "prompt caching", "结构化输出", "retrieval"}
	hosts  = []string{"docs.example.com", "blog.example.org", "wiki.example.cn"}
)

// Documents returns n search hits as {"query":…,"total":n,"hits":[…]}:
// a title, a URL, a relevance score and a snippet each, in the search
// engine's order (not by score), for the "keep the five best-scored
// documents" case.
func Documents(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x2545f4914f6cdd1d))
	b := []byte(`{"query":"agent context budget","total":`)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, `,"next_page":null,"hits":[`...)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		topic := topics[r.IntN(len(topics))]
		b = append(b, `{"rank":`...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, `,"title":"Notes on `...)
		b = append(b, topic...)
		b = append(b, ` #`...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, `","url":"https://`...)
		b = append(b, hosts[r.IntN(len(hosts))]...)
		b = append(b, `/p/`...)
		b = strconv.AppendInt(b, int64(1000+i), 10)
		b = append(b, `","score":`...)
		b = strconv.AppendFloat(b, float64(r.IntN(10000))/10000, 'f', -1, 64)
		b = append(b, `,"snippet":"How agents keep `...)
		b = append(b, topic...)
		b = append(b, ` under control, part `...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, `.","author":null,"tags":[]}`...)
	}
	return append(b, "]}"...)
}

// Log returns n lines of a service log, as a text tool output.
func Log(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x94d049bb133111eb))
	levels := []string{"INFO", "INFO", "INFO", "WARN", "ERROR"}
	msgs := []string{"request served", "cache miss", "订单已创建", "upstream slow", "retrying payment", "连接超时"}
	var b []byte
	for i := range n {
		b = append(b, "2026-12-01T10:"...)
		b = append(b, pad2(i/60%60)...)
		b = append(b, ':')
		b = append(b, pad2(i%60)...)
		b = append(b, "Z "...)
		b = append(b, levels[r.IntN(len(levels))]...)
		b = append(b, " orders-api "...)
		b = append(b, msgs[r.IntN(len(msgs))]...)
		b = append(b, " id=o-"...)
		b = append(b, pad(1+r.IntN(30000))...)
		b = append(b, '\n')
	}
	return b
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// A Set is one data set file.
type Set struct {
	Name string // file name under toolresult/testdata/shape
	Data func() []byte
}

// Sets returns the data sets committed under toolresult/testdata/shape,
// which cmd/gendata writes and a test keeps in step with this package.
func Sets() []Set {
	return []Set{
		{"orders-20.json", func() []byte { return Generate(20, 1) }},
		{"orders-30000.json", func() []byte { return Generate(30000, 1) }},
		{"documents-200.json", func() []byte { return Documents(200, 1) }},
		{"service-2000.log", func() []byte { return Log(2000, 1) }},
	}
}
