// A LangGraph.js graph whose model is @langchain/openai's ChatOpenAI
// pointed at toolwire gateway (GATEWAY_URL). It runs one history, named by
// HISTORY, through a graph with one model node, and prints one JSON line:
// {"text": ...} or {"status": ..., "message": ...}. With STREAM=1 the
// node's ChatOpenAI streams (streaming: true), as most agents' do.
// Driven by gateway/internal/clients/langgraph_test.go.

// A streamed answer's tokens are counted by LangChain with a vocabulary it
// fetches from tiktoken.pages.dev, retrying for minutes when it cannot:
// with no network (CI), it is served from js-tiktoken's own copy.
const realFetch = globalThis.fetch;
globalThis.fetch = async (url, ...rest) => {
  const m = /^https:\/\/tiktoken\.pages\.dev\/js\/([a-z0-9_]+)\.json$/.exec(String(url));
  if (!m) return realFetch(url, ...rest);
  const ranks = (await import(`js-tiktoken/ranks/${m[1]}`)).default;
  return new Response(JSON.stringify(ranks), { headers: { "content-type": "application/json" } });
};

const { ChatOpenAI } = await import("@langchain/openai");
const { StateGraph, MessagesAnnotation, START, END } = await import("@langchain/langgraph");
const { HumanMessage, AIMessage, ToolMessage } = await import("@langchain/core/messages");

const call = (id, city) => ({ id, name: "get_weather", args: { city }, type: "tool_call" });
const result = (id, text) => new ToolMessage({ tool_call_id: id, content: text });
const q = new HumanMessage("What is the weather in Paris and in Rome?");
const two = new AIMessage({ content: "", tool_calls: [call("call_1", "Paris"), call("call_2", "Rome")] });

// The classic broken histories, as a LangGraph state holds them after a
// crash, a retry or a trimmed context.
const histories = {
  "orphan-result": [q, new AIMessage("Let me check."), result("call_1", "sunny, 21 C"), new HumanMessage("And?")],
  "dangling-call": [q, two, result("call_1", "sunny, 21 C"), new HumanMessage("And?")],
  "results-out-of-order": [q, two, result("call_1", "sunny, 21 C"), new AIMessage("Paris is sunny."), result("call_2", "rain, 14 C"), new HumanMessage("And?")],
  "result-after-user": [q, new AIMessage({ content: "", tool_calls: [call("call_1", "Paris")] }), new HumanMessage("Hurry up."), result("call_1", "sunny, 21 C"), new HumanMessage("And?")],
  "duplicate-id": [q, new AIMessage({ content: "", tool_calls: [call("call_1", "Paris"), call("call_1", "Rome")] }), result("call_1", "sunny, 21 C"), result("call_1", "rain, 14 C"), new HumanMessage("And?")],
};

const messages = histories[process.env.HISTORY];
if (!messages) {
  console.error(`unknown HISTORY ${process.env.HISTORY}`);
  process.exit(2);
}

const model = new ChatOpenAI({
  model: "gpt-4.1",
  apiKey: "sk-test",
  maxRetries: 0,
  streaming: process.env.STREAM === "1",
  configuration: { baseURL: process.env.GATEWAY_URL + "/v1" },
});

const graph = new StateGraph(MessagesAnnotation)
  .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
  .addEdge(START, "agent")
  .addEdge("agent", END)
  .compile();

try {
  const out = await graph.invoke({ messages });
  const last = out.messages[out.messages.length - 1];
  console.log(JSON.stringify({ text: last.content }));
} catch (e) {
  console.log(JSON.stringify({ status: e.status ?? e.lc_error_code ?? 0, message: String(e.message ?? e) }));
}
