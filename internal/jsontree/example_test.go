package jsontree_test

import (
	"fmt"

	"github.com/toolwire/toolwire/internal/jsontree"
)

func Example() {
	body := []byte(`{"messages": [
  {"role": "user", "content": "What is 2+2?"},
  {"role": "assistant", "tool_calls": [{"id": 7, "arguments": { "a": 2, "b": 2 }}]}
]}`)
	t, err := jsontree.Parse(body, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	msgs := t.Get(t.Root(), "messages")
	for m := t.First(msgs); m != jsontree.None; m = t.Next(m) {
		fmt.Println(t.Path(m), t.Str(t.Get(m, "role")))
	}
	call := t.First(t.Get(t.Next(t.First(msgs)), "tool_calls"))
	if id := t.Get(call, "id"); t.Kind(id) != jsontree.String {
		fmt.Printf("%s: want a string, got %s\n", t.Path(id), t.Kind(id).Phrase())
	}
	args := t.Get(call, "arguments")
	fmt.Printf("raw %s, compact %s\n", t.Raw(args), t.Compact(args))
	// Output:
	// messages.0 user
	// messages.1 assistant
	// messages.1.tool_calls.0.id: want a string, got a number
	// raw { "a": 2, "b": 2 }, compact {"a":2,"b":2}
}

func ExampleSyntaxError() {
	_, err := jsontree.Parse([]byte("{\"tools\": [\n  {\"name\": \"f\",}\n]}"), nil)
	if se, ok := err.(*jsontree.SyntaxError); ok {
		fmt.Println(se.Path, se.Line, se.Column, se.Offset)
		fmt.Println(se.Msg)
	}
	fmt.Println(err)
	// Output:
	// tools.0 2 16 27
	// want an object key, found '}'
	// tools.0: invalid JSON at line 2, column 16 (byte 27): want an object key, found '}'
}

func ExampleTree_FirstDuplicate() {
	t, _ := jsontree.Parse([]byte(`{"role":"user","content":"a","content":"b"}`), nil)
	if d := t.FirstDuplicate(); d != jsontree.None {
		fmt.Printf("%s: duplicate key at byte %d\n", t.Path(d), t.KeyOffset(d))
	}
	// Output:
	// content: duplicate key at byte 29
}

func ExampleTree_Value() {
	t, _ := jsontree.Parse([]byte(`{"city": "Paris", "days": 3, "tags": ["a", "b"]}`), nil)
	v := t.Value(t.Root()).(map[string]any)
	fmt.Printf("%T %q, %T %v, %T %d\n", v["city"], v["city"], v["days"], v["days"], v["tags"], len(v["tags"].([]any)))
	// Output:
	// string "Paris", json.Number 3, []interface {} 2
}
