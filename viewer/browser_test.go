package viewer_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	_ "modernc.org/sqlite"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/agentfile"
	"github.com/toolwire/toolwire/budget"
	"github.com/toolwire/toolwire/gateway"
	"github.com/toolwire/toolwire/llm"
	"github.com/toolwire/toolwire/provider"
	"github.com/toolwire/toolwire/provider/llmtest"
	"github.com/toolwire/toolwire/server"
	"github.com/toolwire/toolwire/session/sqlite"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/viewer"
)

// shopAgent is the agent the browser test starts: it looks an order
// up, lists the orders (a result too large for its room, so it is
// offloaded) and messages the customer, which waits for approval.
const shopAgent = `name: shop
description: Looks orders up and tells customers; each message waits for approval.
model: openai:gpt-4o-mini
system: You are the viewer test's shop assistant.
max_turns: 6
tools:
  - tool: lookup
  - tool: orders
  - {tool: notify, approval: true}
`

// shopTurns is what the conformance provider answers, turn by turn.
func shopTurns() []llmtest.Turn {
	return []llmtest.Turn{
		{Text: "Let me look the order up.", Calls: []llmtest.Call{{ID: "call_lookup", Name: "lookup", Args: `{"order":"o-00042"}`}}},
		{Calls: []llmtest.Call{{ID: "call_orders", Name: "orders", Args: `{}`}}},
		{Calls: []llmtest.Call{{ID: "call_notify", Name: "notify", Args: `{"message":"Your order ships today."}`}}},
		{Text: "The customer is told: order o-00042 ships today."},
	}
}

// hostile is what the tools put in their results: markup that would set
// window.__xss if the page ran it.
const hostile = `<script>window.__xss=1</script><img src=x onerror="window.__xss=1">`

type lookupIn struct {
	Order string `json:"order" jsonschema:"the order's id"`
}

type notifyIn struct {
	Message string `json:"message" jsonschema:"the message to send"`
}

type order struct {
	ID    string `json:"id"`
	Total int    `json:"total"`
	Note  string `json:"note"`
}

// shopTools returns the agent's tools. lookup and orders each wait for
// a value on release before they answer, so the test sees each call run
// and then its tool message arrive while the run goes on.
func shopTools(t *testing.T, release <-chan struct{}) *tool.Registry {
	wait := func(ctx context.Context) error {
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	lookup, err := tool.Func("lookup", "Looks an order up.", func(ctx context.Context, in lookupIn) (map[string]string, error) {
		if err := wait(ctx); err != nil {
			return nil, err
		}
		return map[string]string{"order": in.Order, "state": "shipped", "note": hostile}, nil
	}, &tool.FuncOptions{Idempotency: tool.Level2})
	must(t, err)
	orders, err := tool.Func("orders", "Lists the orders.", func(ctx context.Context, _ struct{}) ([]order, error) {
		if err := wait(ctx); err != nil {
			return nil, err
		}
		out := make([]order, 300)
		for i := range out {
			out[i] = order{ID: fmt.Sprintf("o-%05d", i), Total: i * 7, Note: hostile}
		}
		return out, nil
	}, &tool.FuncOptions{Idempotency: tool.Level2})
	must(t, err)
	notify, err := tool.Func("notify", "Sends a message to the customer.", func(_ context.Context, in notifyIn) (map[string]bool, error) {
		return map[string]bool{"sent": true}, nil
	}, &tool.FuncOptions{Idempotency: tool.Level0})
	must(t, err)
	reg := tool.NewRegistry()
	reg.MustAdd(lookup, orders, notify)
	return reg
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

const testToken = "viewer-test-token"

// startServer serves the API and the viewer over HTTP, with a SQLite
// store, the conformance provider as the model and a token.
func startServer(t *testing.T, release <-chan struct{}, turns ...llmtest.Turn) string {
	url, _ := startServerStore(t, release, turns...)
	return url
}

// startServerStore is startServer that also returns the server's store.
func startServerStore(t *testing.T, release <-chan struct{}, turns ...llmtest.Turn) (string, *sqlite.Store) {
	model := llmtest.NewServer(t, turns...)
	agents := t.TempDir()
	must(t, os.WriteFile(filepath.Join(agents, "shop.yaml"), []byte(shopAgent), 0o600))
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "toolwire.db")+"?_pragma=busy_timeout(10000)")
	must(t, err)
	t.Cleanup(func() { db.Close() })
	store, err := sqlite.New(context.Background(), db, nil)
	must(t, err)
	reg := shopTools(t, release)
	srv, err := server.New(&server.Config{
		Store:  store,
		Agents: agents,
		Token:  testToken,
		UI:     viewer.FS(),
		Build: func(def *agentfile.Definition) (llm.Model, *toolwire.Config, error) {
			m, cfg, err := def.Build(&agentfile.Options{Tools: reg, Provider: &provider.Options{BaseURL: model.URL + "/v1", APIKey: "test-key", MaxRetries: -1}})
			if err != nil {
				return nil, nil, err
			}
			cfg.Room = &budget.RoomConfig{MaxResult: 300} // orders is offloaded
			// A small window, so that each turn's bar shows its share.
			cfg.Limits = budget.Limits{Window: 4096, MaxOutput: 512, Encoding: budget.Estimated}
			return m, cfg, nil
		},
	})
	must(t, err)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Shutdown(context.Background()) // ends the event streams, so Close does not wait for them
		hs.Close()
	})
	return hs.URL, store
}

// chromium returns the path of a Chromium to drive. Without one the test
// fails in CI (.ci/run installs Debian's chromium) and is skipped
// elsewhere.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true and no Chromium is installed: the browser test must run in CI (.ci/run installs Debian's chromium package)")
	}
	t.Skip("no Chromium is installed (apt-get install chromium); the browser test is skipped")
	return ""
}

// artifacts is the directory for the test's screenshots:
// TOOLWIRE_ARTIFACTS when set, else a temporary one.
func artifacts(t *testing.T) string {
	if d := os.Getenv("TOOLWIRE_ARTIFACTS"); d != "" {
		must(t, os.MkdirAll(d, 0o755))
		return d
	}
	return t.TempDir()
}

// browser is a headless Chromium tab, with what the page reported.
type browser struct {
	t   *testing.T
	ctx context.Context
	out string // the artifacts directory

	mu         sync.Mutex
	exceptions []string
}

func newBrowser(t *testing.T, out string) *browser {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox, // CI runs as root
		chromedp.WindowSize(1280, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx, out: out}
	// The first Run starts the browser and lives as long as it; it
	// records every security policy violation in window.__violations,
	// before any script of the page runs.
	_, err := chromedp.Run(ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));`,
		})
		return err
	}))
	must(t, err)
	exceptions := chromedp.Events(ctx, runtime.ExceptionThrown)
	go func() {
		for ev, err := range exceptions {
			if err != nil {
				return
			}
			text := ev.ExceptionDetails.Text
			if ex := ev.ExceptionDetails.Exception; ex != nil && ex.Description != "" {
				text += " " + ex.Description
			}
			b.mu.Lock()
			b.exceptions = append(b.exceptions, text)
			b.mu.Unlock()
		}
	}()
	return b
}

// do runs steps, failing the test with what the step was for. Each
// waits at most a minute, a bound for a broken page, not a timing.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v%s%s", what, err, b.reported(), b.failed())
	}
}

// eval evaluates a JavaScript expression to a T.
func eval[T any](b *browser, expr string, opts ...chromedp.EvaluateOption) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, opts...))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v%s", expr, err, b.reported())
	}
	return v
}

// text is the text of the first element sel matches.
func (b *browser) text(sel string) string {
	b.t.Helper()
	return eval[string](b, fmt.Sprintf(`document.querySelector(%q)?.textContent ?? ''`, sel))
}

// failed saves a screenshot of the page as it is, for a failure's
// message.
func (b *browser) failed() string {
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return ""
	}
	p := filepath.Join(b.out, "failure.png")
	if os.WriteFile(p, png, 0o644) != nil {
		return ""
	}
	return "\nthe page as it was: " + p
}

// reported is what the page threw, for a failure's message.
func (b *browser) reported() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.exceptions) == 0 {
		return ""
	}
	return "\nthe page threw:\n" + strings.Join(b.exceptions, "\n")
}

// start opens the viewer, gives the token the server asks for, and
// starts a session of the shop agent with message. What follows happens
// in this one page: window.__page, set here, tells a reload.
func (b *browser) start(url, message string) {
	b.t.Helper()
	b.do("open the viewer", chromedp.Navigate(url+"/"), visible("#token-form"))
	b.do("give the token", chromedp.SendKeys(chromedp.CSS("#token-input"), testToken), chromedp.Click(chromedp.CSS("#token-form button")))
	b.do("read the agents", chromedp.WaitReady(chromedp.CSS(`#agent option[value="shop"]`)))
	eval[chromedp.Void](b, `window.__page = 'first'`)
	b.do("start a session of the agent",
		chromedp.SendKeys(chromedp.CSS("#message"), message),
		chromedp.Click(chromedp.CSS("form.start button[type=submit]")),
		visible("#session-status"))
}

// visible waits for an element that sel matches to be shown.
func visible(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(sel))
}

// TestViewer drives the viewer in headless Chromium against a real
// server: it gives the token, starts the shop agent, sees each call run
// and its tool message arrive while the run goes on, approves the call
// that waits, reads the request a turn sent, pages the offloaded
// result, and checks that the markup in the results is shown as text
// and never run. It saves screenshots in TOOLWIRE_ARTIFACTS (or a
// temporary directory).
func TestViewer(t *testing.T) {
	release := make(chan struct{})
	url := startServer(t, release, shopTurns()...)
	out := artifacts(t)
	b := newBrowser(t, out)
	shot := func(name string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(b.ctx, time.Minute)
		defer cancel()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG
		must(t, err)
		p := filepath.Join(out, name)
		must(t, os.WriteFile(p, png, 0o644))
		t.Logf("screenshot: %s", p)
	}

	b.start(url, "Tell the customer about order o-00042")

	// Each paced call shows as running, then its tool message arrives
	// while the run goes on.
	for _, name := range []string{"lookup", "orders"} {
		call := fmt.Sprintf(`li.call[data-tool=%q]`, name)
		b.do("see "+name+" run", visible(call+`[data-status="running"]`))
		if got := b.text(call + " .result"); got != "" {
			t.Fatalf("%s shows a result before it answered: %q", name, got)
		}
		release <- struct{}{}
		b.do("see the tool message of "+name, visible(call+`[data-status="success"] .result .summary`))
		if got := eval[string](b, `document.querySelector('#session-status').dataset.status`); got != "running" && name == "lookup" {
			t.Errorf("after lookup's tool message the session is %q, want running: the message came live", got)
		}
	}
	lookup := b.text(`li.call[data-tool="lookup"] .result`)
	if !strings.Contains(lookup, `<script>window.__xss=1</script><img src=x onerror=`) {
		t.Errorf("lookup's tool message does not show the markup as text:\n%s", lookup)
	}
	b.do("see the offload note", visible(`li.call[data-tool="orders"] .notes a.full`))
	if got := b.text(`li.call[data-tool="orders"] .notes`); !strings.Contains(got, "Truncated") {
		t.Errorf("orders' notes = %q, want the truncation said", got)
	}
	if got := b.text("#turn-1 .budget label"); !strings.Contains(got, "of 4,096 tokens") {
		t.Errorf("turn 1's budget = %q", got)
	}

	// notify waits for approval: approve it.
	b.do("see the call that waits", visible(`.approvals fieldset[data-call="call_notify"]`))
	if got := b.text(".approvals pre"); !strings.Contains(got, "Your order ships today.") {
		t.Errorf("the waiting call's arguments = %q", got)
	}
	// The data of a tool message opens: markup in it shows as text.
	b.do("open lookup's data", chromedp.Click(chromedp.CSS(`li.call[data-tool="lookup"] details.data summary`)),
		visible(`li.call[data-tool="lookup"] details.data pre`))
	shot("viewer-approval.png")
	b.do("approve it",
		chromedp.Click(chromedp.CSS(`.approvals input[value="approve"]`)),
		chromedp.Click(chromedp.CSS(".approvals button[type=submit]")),
		visible(`li.call[data-tool="notify"][data-status="success"] .summary`),
		visible("li.item.end"),
		visible(`#session-status[data-status="done"]`))
	if got := b.text(`li.call[data-tool="notify"] .decision`); !strings.Contains(got, "Approved") {
		t.Errorf("notify's decision = %q", got)
	}
	if got := b.text("#turn-4 .model"); !strings.Contains(got, "The customer is told") {
		t.Errorf("turn 4's text = %q", got)
	}
	if got := eval[string](b, `window.__page ?? ''`); got != "first" {
		t.Errorf("the page was loaded again (window.__page = %q): the updates did not come live", got)
	}
	shot("viewer-session.png")

	// The request body turn 2 sent holds lookup's tool message.
	b.do("open turn 2's request", chromedp.Click(chromedp.CSS("#turn-2 a.request")), visible("pre.request-body"))
	if got := b.text("pre.request-body"); !strings.Contains(got, `"messages"`) || !strings.Contains(got, "window.__xss=1") {
		t.Errorf("turn 2's request body does not show lookup's message:\n%.2000s", got)
	}

	// The full result of orders, a page at a time.
	b.do("go back", chromedp.NavigateBack(), visible(`li.call[data-tool="orders"] .notes a.full`))
	b.do("open the full result", chromedp.Click(chromedp.CSS(`li.call[data-tool="orders"] .notes a.full`)), visible("pre.result-data"))
	for pages := 1; eval[bool](b, `!document.querySelector('main button').hidden`); pages++ {
		if pages > 10 {
			t.Fatal("the result has more than 10 pages")
		}
		before := len(b.text("pre.result-data"))
		b.do("load the next page", chromedp.Click(chromedp.CSS("main button")))
		b.do("see it", chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('pre.result-data').textContent.length > %d`, before)))
	}
	data := b.text("pre.result-data")
	if !strings.Contains(data, `"id":"o-00299"`) || !strings.Contains(data, `"id":"o-00000"`) {
		t.Errorf("the pages of the result do not hold every order (%d bytes shown)", len(data))
	}
	if got := b.text("main p[role=status]"); !strings.HasPrefix(got, "All ") {
		t.Errorf("after the last page: %q", got)
	}
	shot("viewer-result.png")

	// The markup the tools returned was text everywhere: nothing ran and
	// no element came of it; the page kept the policy.
	if got := eval[bool](b, `window.__xss !== undefined`); got {
		t.Error("a script in a tool result ran: window.__xss is set")
	}
	b.do("go back to the session", chromedp.NavigateBack(), visible(`li.call[data-tool="orders"] .notes a.full`))
	if n := eval[int](b, `document.querySelectorAll('main script, main img, main iframe, main object').length`); n != 0 {
		t.Errorf("%d elements came from markup in tool results", n)
	}
	if got := eval[[]string](b, `window.__violations`); len(got) != 0 {
		t.Errorf("the page broke its Content-Security-Policy: %v", got)
	}
	if r := b.reported(); r != "" {
		t.Errorf("%s", strings.TrimSpace(r))
	}
	if eval[bool](b, `window.__xss !== undefined`) {
		t.Error("a script in a tool result ran: window.__xss is set")
	}
}

// TestViewerDecisions: the approval controls refuse arguments that are
// not JSON, show the server's refusal of an edit that breaks the tool's
// schema, and send a rejection with its reason, which the model reads.
func TestViewerDecisions(t *testing.T) {
	url := startServer(t, nil,
		llmtest.Turn{Calls: []llmtest.Call{{ID: "call_notify", Name: "notify", Args: `{"message":"Your order ships today."}`}}},
		llmtest.Turn{Text: "I will not tell the customer."})
	b := newBrowser(t, artifacts(t))
	b.start(url, "Tell the customer")
	const row = `.approvals fieldset[data-call="call_notify"]`
	b.do("see the call that waits", visible(row), visible(`#session-status[data-status="paused"]`))
	problem := func(what, args, want string) {
		t.Helper()
		b.do(what,
			chromedp.SetValue(chromedp.CSS("#decision-0-args"), args),
			chromedp.Click(chromedp.CSS(".approvals button[type=submit]")),
			chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('.approvals .error').textContent.includes(%q)`, want)))
	}
	b.do("choose edit", chromedp.Click(chromedp.CSS(row+` input[value="edit"]`)), visible("#decision-0-args"))
	problem("edit with arguments that are not JSON", `{"message": `, "are not JSON")
	problem("edit with arguments that break the schema", `{"message": 7}`, "edited arguments")
	if got := eval[string](b, `document.querySelector('#session-status').dataset.status`); got != "paused" {
		t.Errorf("after a refused edit the session is %q, want paused", got)
	}
	b.do("reject with a reason",
		chromedp.Click(chromedp.CSS(row+` input[value="reject"]`)),
		chromedp.SendKeys(chromedp.CSS("#decision-0-reason"), "not today"),
		chromedp.Click(chromedp.CSS(".approvals button[type=submit]")),
		visible(`li.call[data-tool="notify"][data-status="error"] .summary`),
		visible(`#session-status[data-status="done"]`))
	if got := b.text(`li.call[data-tool="notify"] .decision`); !strings.Contains(got, "Rejected by a person: not today") {
		t.Errorf("notify's decision = %q", got)
	}
	if got := b.text(`li.call[data-tool="notify"] .result`); !strings.Contains(got, "rejected_by_user") || !strings.Contains(got, "not today") {
		t.Errorf("notify's tool message does not say the rejection and its reason:\n%s", got)
	}
	if !eval[bool](b, `document.querySelector('.approvals').hidden`) {
		t.Error("the decisions are still offered after the run went on")
	}
	if r := b.reported(); r != "" {
		t.Errorf("%s", strings.TrimSpace(r))
	}
}

// TestViewerGatewayRecord opens the session of a request toolwire
// gateway repaired, in the same store: the page shows the record — the
// verdict, the rule, the repair and the diff — as text.
func TestViewerGatewayRecord(t *testing.T) {
	url, store := startServerStore(t, nil)
	up := llmtest.NewServer(t, llmtest.Turn{Text: "ok"})
	g, err := gateway.New(&gateway.Config{Anthropic: up.URL, Store: store})
	must(t, err)
	gw := httptest.NewServer(g)
	defer gw.Close()
	// The model's name holds markup, which the page shows as text.
	body := `{"model":"claude-sonnet-4-5<b>x</b>","max_tokens":256,"messages":[{"role":"user","content":"Weather in <b>Paris</b>?"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]},{"role":"user","content":"Well?"}]}`
	req, _ := http.NewRequest("POST", gw.URL+"/v1/messages", strings.NewReader(body))
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	resp.Body.Close()
	id := resp.Header.Get(gateway.RecordHeader)
	if resp.StatusCode != 200 || id == "" {
		t.Fatalf("through the gateway: %d, record %q", resp.StatusCode, id)
	}
	b := newBrowser(t, artifacts(t))
	b.do("open the viewer", chromedp.Navigate(url+"/#/s/"+id), visible("#token-form"))
	b.do("give the token", chromedp.SendKeys(chromedp.CSS("#token-input"), testToken), chromedp.Click(chromedp.CSS("#token-form button")))
	b.do("see the record", visible(`#record-verdict[data-verdict="repaired"]`), visible(`li.violation[data-rule="ANT-RESULT-NEXT"]`), visible("pre.diff"))
	if got := b.text("pre.diff"); !strings.Contains(got, "+ messages.2") || !strings.Contains(got, "tool_result") {
		t.Errorf("the diff shows %q", got)
	}
	if got := b.text(`li.change[data-rule="ANT-RESULT-NEXT"]`); !strings.Contains(got, "interrupted") {
		t.Errorf("the repair shows %q", got)
	}
	if n := eval[int](b, `document.querySelectorAll('main b').length`); n != 0 || !strings.Contains(b.text(".facts"), "claude-sonnet-4-5<b>x</b>") {
		t.Errorf("the model's name is not shown as text: %d <b> elements; facts %q", n, b.text(".facts"))
	}
	if r := b.reported(); r != "" {
		t.Errorf("%s", strings.TrimSpace(r))
	}
}
