// Package orders generates the fixed data sets that the observation
// pipeline's tests and benchmarks shape: order records with Chinese and
// English fields, nested addresses, nulls and empty values. The output
// depends only on the arguments, so a data set can be regenerated
// byte for byte (observe/testdata/orders-30000.json is Generate(30000, 1)).
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
