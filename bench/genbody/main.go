// Command genbody writes a large provider request body, a long tool loop,
// for measuring the peak memory of toolwire check and check --fix
// (docs/benchmarks.md):
//
//	go run ./bench/genbody -dialect openai-chat -size 200 > /tmp/chat.json
//
// The body is a conversation of turns, each a user message, an assistant
// message calling a tool and the tool's result (a rendered envelope with
// about 2 KB of data), until the body reaches -size MB. With -broken, every
// fiftieth call has no result and a user message follows it instead, so
// that check rejects the body and check --fix has work to do.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
)

func main() {
	dialect := flag.String("dialect", "openai-chat", "openai-chat or anthropic")
	size := flag.Int("size", 200, "the body's size in MB (10^6 bytes)")
	broken := flag.Bool("broken", false, "leave every fiftieth call unanswered")
	flag.Parse()
	var t turns
	switch *dialect {
	case "openai-chat":
		t = chat{}
	case "anthropic":
		t = anthropic{}
	default:
		fmt.Fprintf(os.Stderr, "genbody: -dialect %q: want openai-chat or anthropic\n", *dialect)
		os.Exit(2)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	n := 0
	write := func(s string) { n += len(s); w.WriteString(s) }
	write(t.head())
	data := `"data":[` + strings.Repeat(`{"flight":"AF128","depart":"10:35","arrive":"05:40","price_eur":612,"seats":4},`, 24) + `{"flight":"CA934"}]`
	for i := 0; n < *size*1_000_000; i++ {
		if i > 0 {
			write(",")
		}
		result := `{\"status\":\"success\",\"summary\":\"search_flights(from=PAR, to=PEK): 25 flights\",` + strings.ReplaceAll(data, `"`, `\"`) + `}`
		write(t.turn(i, result, *broken && i%50 == 49))
	}
	write(t.tail())
	w.WriteString("\n")
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "genbody:", err)
		os.Exit(1)
	}
}

type turns interface {
	head() string
	// turn writes turn i: a user message, a call, and its result (a JSON
	// string's contents), or a user message instead of the result when
	// unanswered.
	turn(i int, result string, unanswered bool) string
	tail() string
}

const args = `{\"from\":\"PAR\",\"to\":\"PEK\",\"date\":\"2026-12-01\"}`

type chat struct{}

func (chat) head() string {
	return `{"model":"gpt-4.1","messages":[{"role":"system","content":"You are a travel assistant."},` + "\n"
}

func (chat) turn(i int, result string, unanswered bool) string {
	id := "call_" + strconv.Itoa(i)
	s := fmt.Sprintf(`{"role":"user","content":"Search flights, take %d."},`+"\n"+
		`{"role":"assistant","content":null,"tool_calls":[{"id":%q,"type":"function","function":{"name":"search_flights","arguments":"%s"}}]},`+"\n", i, id, args)
	if unanswered {
		return s + `{"role":"user","content":"The app crashed; go on."}` + "\n"
	}
	return s + fmt.Sprintf(`{"role":"tool","tool_call_id":%q,"content":"%s"}`+"\n", id, result)
}

func (chat) tail() string {
	return `],"tools":[{"type":"function","function":{"name":"search_flights","description":"Search flights.","parameters":{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"},"date":{"type":"string"}},"required":["from","to","date"]}}}]}`
}

type anthropic struct{}

func (anthropic) head() string {
	return `{"model":"claude-sonnet-4-5","max_tokens":1024,"system":"You are a travel assistant.","messages":[` + "\n"
}

func (anthropic) turn(i int, result string, unanswered bool) string {
	id := "toolu_" + strconv.Itoa(i)
	s := fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":"Search flights, take %d."}]},`+"\n"+
		`{"role":"assistant","content":[{"type":"text","text":"Searching."},{"type":"tool_use","id":%q,"name":"search_flights","input":{"from":"PAR","to":"PEK","date":"2026-12-01"}}]},`+"\n", i, id)
	if unanswered {
		return s + `{"role":"user","content":[{"type":"text","text":"The app crashed; go on."}]},` + "\n" + `{"role":"assistant","content":"Going on."}` + "\n"
	}
	return s + fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":"%s"}]},`+"\n", id, result) +
		`{"role":"assistant","content":"Found 25 flights."}` + "\n"
}

func (anthropic) tail() string {
	return `],"tools":[{"name":"search_flights","description":"Search flights.","input_schema":{"type":"object","properties":{"from":{"type":"string"},"to":{"type":"string"},"date":{"type":"string"}},"required":["from","to","date"]}}]}`
}
