package anthropic

import (
	"bytes"
	"testing"

	"github.com/toolwire/toolwire/provider/internal/codectest"
	"github.com/toolwire/toolwire/transcript"
)

// TestAcceptedShapes holds request shapes the Messages API documents and
// accepts, written for this test: each is read, accepted (warnings aside)
// and written back byte for byte, compacted.
func TestAcceptedShapes(t *testing.T) {
	for _, tt := range []struct{ name, body string }{
		{"interleaved thinking: a later step thinks too", `{"model":"claude-sonnet-4-5","max_tokens":16000,"thinking":{"type":"enabled","budget_tokens":4000},"messages":[
			{"role":"user","content":"Weather in Paris, then convert it to F."},
			{"role":"assistant","content":[{"type":"thinking","thinking":"Weather first.","signature":"c2lnMQ=="},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"18C"}]},
			{"role":"assistant","content":[{"type":"thinking","thinking":"Now convert.","signature":"c2lnMg=="},{"type":"tool_use","id":"toolu_2","name":"convert","input":{"c":18}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"64.4F"}]}]}`},
		{"thinking on, a tool loop of three steps thinking once", `{"model":"claude-opus-4-1","max_tokens":16000,"thinking":{"type":"enabled","budget_tokens":2048},"messages":[
			{"role":"user","content":"Find the file and count its lines."},
			{"role":"assistant","content":[{"type":"redacted_thinking","data":"EmwKAhgB"},{"type":"text","text":"Searching."},{"type":"tool_use","id":"toolu_a","name":"find","input":{"name":"x.go"}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":"/src/x.go"}]},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_b","name":"read","input":{"path":"/src/x.go"}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_b","content":[{"type":"text","text":"package x"}]}]},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_c","name":"wc","input":{"path":"/src/x.go"}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_c","content":"1"}]}]}`},
		{"PDF with citations, search results and a prefill", `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[
			{"role":"user","content":[
				{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="},"title":"Spec","context":"v2","citations":{"enabled":true},"cache_control":{"type":"ephemeral"}},
				{"type":"search_result","source":"https://example.com/a","title":"A","content":[{"type":"text","text":"alpha"}],"citations":{"enabled":true}},
				{"type":"text","text":"Summarise both as JSON."}]},
			{"role":"assistant","content":"{"}]}`},
		{"web search and web fetch server tools, then a client tool", `{"model":"claude-sonnet-4-5","max_tokens":2048,"tools":[{"type":"web_search_20250305","name":"web_search"},{"type":"web_fetch_20250910","name":"web_fetch","max_uses":2},{"name":"save","input_schema":{"type":"object"}}],"messages":[
			{"role":"user","content":"Find the Go release notes and save the link."},
			{"role":"assistant","content":[
				{"type":"server_tool_use","id":"srvtoolu_01","name":"web_search","input":{"query":"go release notes"}},
				{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01","content":[{"type":"web_search_result","url":"https://go.dev/doc/devel/release","title":"Release History","encrypted_content":"Eo8B","page_age":null}]},
				{"type":"server_tool_use","id":"srvtoolu_02","name":"web_fetch","input":{"url":"https://go.dev/doc/devel/release"}},
				{"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_02","content":{"type":"web_fetch_result","url":"https://go.dev/doc/devel/release","content":{"type":"document","source":{"type":"text","media_type":"text/plain","data":"go1.26"}}}},
				{"type":"text","text":"Found it.","citations":[{"type":"web_search_result_location","url":"https://go.dev/doc/devel/release","title":"Release History","encrypted_index":"Eo8","cited_text":"go1.26"}]},
				{"type":"tool_use","id":"toolu_s","name":"save","input":{"url":"https://go.dev/doc/devel/release"}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_s","content":"saved"}]}]}`},
		{"a paused server tool turn is continued", `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[
			{"role":"user","content":"Search twice."},
			{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"a"}}]}]}`},
		{"MCP connector blocks", `{"model":"claude-sonnet-4-5","max_tokens":1024,"mcp_servers":[{"type":"url","url":"https://mcp.example.com/sse","name":"ex"}],"messages":[
			{"role":"user","content":"Use the example server."},
			{"role":"assistant","content":[{"type":"mcp_tool_use","id":"mcptoolu_1","name":"echo","server_name":"ex","input":{"s":"hi"}},{"type":"mcp_tool_result","tool_use_id":"mcptoolu_1","is_error":false,"content":[{"type":"text","text":"hi"}]},{"type":"text","text":"It said hi."}]},
			{"role":"user","content":"Thanks."}]}`},
		{"code execution with a file from the Files API", `{"model":"claude-sonnet-4-5","max_tokens":4096,"container":"cntr_01","tools":[{"type":"code_execution_20250825","name":"code_execution"}],"messages":[
			{"role":"user","content":[{"type":"text","text":"Plot this CSV."},{"type":"container_upload","file_id":"file_01"}]},
			{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_9","name":"bash_code_execution","input":{"command":"ls"}},{"type":"bash_code_execution_tool_result","tool_use_id":"srvtoolu_9","content":{"type":"bash_code_execution_result","stdout":"data.csv","stderr":"","return_code":0,"content":[]}}]},
			{"role":"user","content":"Go on."}]}`},
		{"a mid-conversation system message on Opus 4.8", `{"model":"claude-opus-4-8","max_tokens":1024,"system":[{"type":"text","text":"You review code.","cache_control":{"type":"ephemeral"}}],"messages":[
			{"role":"user","content":"Review a + b."},
			{"role":"system","content":"From now on, answer in one line."},
			{"role":"assistant","content":"Fine, but name it."},
			{"role":"user","content":"And now?"},
			{"role":"system","content":[{"type":"tool_removal","tool_name":"lint"},{"type":"text","text":"Linting is off."}]}]}`},
		{"a tool result of an image, a document and a tool reference", `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[
			{"role":"user","content":"Show me."},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"shot","input":{},"cache_control":{"type":"ephemeral"}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,"content":[
				{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}},
				{"type":"document","source":{"type":"file","file_id":"file_02"}},
				{"type":"tool_reference","tool_name":"zoom"}]},
				{"type":"text","text":"Describe it."}]}]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := []byte(tt.body)
			r, err := Decode(body)
			if err != nil {
				t.Fatalf("Decode error: %v", err)
			}
			model := ""
			for _, f := range r.Fields {
				if f.Key == "model" {
					model = string(bytes.Trim(f.Value, `"`))
				}
			}
			vs := append(append([]transcript.Violation(nil), r.Wire...), transcript.CheckRequest(transcript.Request{Messages: r.Messages, Tools: r.Tools, Thinking: r.Thinking, Model: model}, Dialect)...)
			if !transcript.Accepted(vs) {
				t.Errorf("rejected: %v", vs)
			}
			enc, warns, err := Encode(r)
			if err != nil || len(warns) > 0 || !bytes.Equal(enc, codectest.Compact(t, body)) {
				t.Errorf("Encode(Decode(x)) = %s, %v, %v; want x compacted", enc, warns, err)
			}
		})
	}
}
