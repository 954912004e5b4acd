// Package agent holds the tools of the bundled example agent
// (examples/agent/agent.yaml), which `toolwire run` knows by name. They are
// deterministic — the same arguments give the same result, with no network
// and no clock — so that a replayed run prints the same thing every time,
// and each shows one thing the loop does with tool results:
//
//   - get_weather: a small result, the seeds' "北京今天适合穿什么衣服" case;
//   - search_orders: thousands of records, shaped to the budget and paged
//     with read_result;
//   - create_ticket: a side effect made safe to retry by an idempotency
//     key; the set counts its effects (crash tests count them);
//   - build_report: never finishes, so that its timeout answers for it;
//   - check_inventory: fails with a typed error and a suggestion;
//   - notify_customer: a side effect that cannot be made safe to repeat
//     (level_0): it is never run twice, and a crash mid-call leaves it
//     interrupted.
package agent

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/internal/jsonx"
	"github.com/toolwire/toolwire/internal/orders"
	"github.com/toolwire/toolwire/tool"
	"github.com/toolwire/toolwire/toolresult"
)

// Options configure a [Set]. A nil *Options means the defaults.
type Options struct {
	// Ledger, when set, is a file that create_ticket and notify_customer
	// append one line to for each side effect ("T-1001 KEY", "notify
	// CALL-ID"), so that effects can be counted across processes; a
	// ticket's key found in it is not ticketed again, as a service that
	// deduplicates by key would do. "" keeps the count in memory only.
	Ledger string
	// ReportTimeout bounds build_report; 0 means 200ms.
	ReportTimeout time.Duration
	// Orders is how many order records search_orders holds; 0 means 5,000.
	Orders int
}

// A Set is one instance of the example tools, with its own side effects.
// It is safe for concurrent use.
type Set struct {
	opts    Options
	mu      sync.Mutex
	tickets map[string]int // idempotency key → ticket number
	orders  []byte
	tools   map[string]tool.Tool
}

// NewSet returns the example tools.
func NewSet(opts *Options) *Set {
	s := &Set{tickets: map[string]int{}}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.ReportTimeout == 0 {
		s.opts.ReportTimeout = 200 * time.Millisecond
	}
	if s.opts.Orders == 0 {
		s.opts.Orders = 5000
	}
	s.tools = map[string]tool.Tool{
		"get_weather":     s.weather(),
		"search_orders":   s.searchOrders(),
		"create_ticket":   s.createTicket(),
		"build_report":    s.buildReport(),
		"check_inventory": s.checkInventory(),
		"notify_customer": s.notifyCustomer(),
	}
	return s
}

// Names returns the names of the example tools, sorted.
func Names() []string {
	return []string{"build_report", "check_inventory", "create_ticket", "get_weather", "notify_customer", "search_orders"}
}

// Tool returns the example tool called name.
func (s *Set) Tool(name string) (tool.Tool, bool) {
	t, ok := s.tools[name]
	return t, ok
}

// Registry returns the example tools in a new registry, sorted by name:
// the Go tools an agent definition may name (agentfile.Options.Tools).
func (s *Set) Registry() *tool.Registry {
	reg := tool.NewRegistry()
	for _, name := range Names() {
		reg.MustAdd(s.tools[name])
	}
	return reg
}

// Effects returns how many tickets create_ticket created: one per
// idempotency key, however many times a call with that key ran.
func (s *Set) Effects() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tickets)
}

// Weather is what get_weather returns.
type Weather struct {
	City       string `json:"city"`
	Date       string `json:"date"`
	Sky        string `json:"sky"`
	TempC      int    `json:"temp_c"`
	HighC      int    `json:"high_c"`
	LowC       int    `json:"low_c"`
	FeelsLikeC int    `json:"feels_like_c"`
	Wind       string `json:"wind"`
	Humidity   int    `json:"humidity_pct"`
	UVIndex    int    `json:"uv_index"`
}

var weather = map[string]Weather{
	"北京":     {City: "北京", Date: "today", Sky: "晴 (sunny)", TempC: 6, HighC: 9, LowC: -2, FeelsLikeC: 2, Wind: "北风 4 级 (north, 25 km/h)", Humidity: 22, UVIndex: 3},
	"上海":     {City: "上海", Date: "today", Sky: "多云 (cloudy)", TempC: 12, HighC: 14, LowC: 8, FeelsLikeC: 10, Wind: "东风 2 级 (east, 9 km/h)", Humidity: 68, UVIndex: 2},
	"Paris":  {City: "Paris", Date: "today", Sky: "light rain", TempC: 11, HighC: 13, LowC: 7, FeelsLikeC: 9, Wind: "south-west, 18 km/h", Humidity: 81, UVIndex: 1},
	"London": {City: "London", Date: "today", Sky: "overcast", TempC: 9, HighC: 10, LowC: 6, FeelsLikeC: 7, Wind: "west, 22 km/h", Humidity: 77, UVIndex: 1},
	"Tokyo":  {City: "Tokyo", Date: "today", Sky: "sunny", TempC: 15, HighC: 18, LowC: 9, FeelsLikeC: 15, Wind: "north, 7 km/h", Humidity: 45, UVIndex: 4},
}

func (s *Set) weather() tool.Tool {
	type in struct {
		City string `json:"city" minLength:"1" maxLength:"80" jsonschema:"The city, in its own language or in English: 北京, Paris, Tokyo."`
	}
	return tool.MustFunc("get_weather",
		"Today's weather in a city: sky, temperature now, high and low, how warm it feels, wind, humidity and UV index, in °C. "+
			"Use it for questions about the weather or what to wear. Knows 北京, 上海, Paris, London and Tokyo.",
		func(ctx context.Context, a in) (toolresult.Envelope, error) {
			w, ok := weather[a.City]
			if !ok {
				env := toolresult.Failure(toolresult.NotFound, fmt.Sprintf("no weather station for %q", a.City))
				known := slices.Sorted(func(yield func(string) bool) {
					for k := range weather {
						if !yield(k) {
							return
						}
					}
				})
				env.Suggestion = toolresult.Options(fmt.Sprintf("ask for one of %v", known), "tell the user the city is not covered")
				return env, nil
			}
			return toolresult.Success(fmt.Sprintf("get_weather(city=%s): %s, %d°C (feels like %d°C), high %d°C, low %d°C", w.City, w.Sky, w.TempC, w.FeelsLikeC, w.HighC, w.LowC), w), nil
		}, &tool.FuncOptions{Idempotency: tool.Level2})
}

func (s *Set) searchOrders() tool.Tool {
	type in struct {
		Status string `json:"status,omitempty" enum:"pending|paid|shipped|delivered|cancelled|refunded" jsonschema:"Only orders with this status; leave it out for all."`
	}
	return tool.MustFunc("search_orders",
		"Searches the shop's orders and returns every matching order record (id, status, customer, address, items, total). "+
			"Results are large: read on with read_result and the ref the result gives.",
		func(ctx context.Context, a in) (jsontext.Value, error) {
			s.mu.Lock()
			if s.orders == nil {
				s.orders = orders.Generate(s.opts.Orders, 7)
			}
			data := s.orders
			s.mu.Unlock()
			if a.Status == "" {
				return data, nil
			}
			var all []map[string]any
			if err := jsonx.Unmarshal(data, &all); err != nil {
				return nil, err
			}
			var out []map[string]any
			for _, o := range all {
				if o["status"] == a.Status {
					out = append(out, o)
				}
			}
			return jsonx.Marshal(out)
		}, &tool.FuncOptions{Idempotency: tool.Level2})
}

func (s *Set) createTicket() tool.Tool {
	type in struct {
		Subject string `json:"subject" minLength:"1" maxLength:"120" jsonschema:"One line: what the ticket is about."`
		Body    string `json:"body,omitempty" maxLength:"4000" jsonschema:"Details for the support team."`
	}
	type out struct {
		Ticket string `json:"ticket"`
		New    bool   `json:"new"`
	}
	return tool.MustFunc("create_ticket",
		"Opens a support ticket and returns its number. Each call opens one ticket; a retry of the same call (same idempotency key) returns the same ticket.",
		func(ctx context.Context, a in) (out, error) {
			ci, _ := tool.CallInfoFrom(ctx)
			key := ci.IdempotencyKey
			if key == "" {
				return out{}, tool.Errorf(toolresult.InternalError, "no idempotency key: create_ticket must run through the executor as a level-1 tool")
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if n, ok := s.tickets[key]; ok {
				return out{Ticket: "T-" + strconv.Itoa(1000+n), New: false}, nil
			}
			if ticket, ok := s.ledgered(key); ok {
				return out{Ticket: ticket, New: false}, nil
			}
			n := len(s.tickets) + 1
			if s.opts.Ledger != "" {
				f, err := os.OpenFile(s.opts.Ledger, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if err != nil {
					return out{}, tool.Errorf(toolresult.InternalError, "the ticket ledger cannot be opened: %v", err)
				}
				_, err = fmt.Fprintf(f, "T-%d %s\n", 1000+n, key)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return out{}, tool.Errorf(toolresult.InternalError, "the ticket could not be recorded: %v", err)
				}
			}
			s.tickets[key] = n
			return out{Ticket: "T-" + strconv.Itoa(1000+n), New: true}, nil
		}, &tool.FuncOptions{Idempotency: tool.Level1})
}

func (s *Set) buildReport() tool.Tool {
	type in struct {
		Period string `json:"period" enum:"day|week|month" jsonschema:"The period the report covers."`
	}
	return tool.MustFunc("build_report",
		"Builds the sales report for a period. It is slow: it can time out, and then nothing was built.",
		func(ctx context.Context, a in) (string, error) {
			<-ctx.Done() // the report service never answers in time
			return "", ctx.Err()
		}, &tool.FuncOptions{Idempotency: tool.Level2, Timeout: s.opts.ReportTimeout})
}

func (s *Set) checkInventory() tool.Tool {
	type in struct {
		SKU string `json:"sku" pattern:"^[A-Z]{2}-[0-9]{4}$" jsonschema:"The product's stock-keeping unit, e.g. CO-0042."`
	}
	return tool.MustFunc("check_inventory",
		"Returns how many units of a product are in stock, by SKU.",
		func(ctx context.Context, a in) (toolresult.Envelope, error) {
			env := toolresult.Failure(toolresult.UpstreamError, "the warehouse API is down for maintenance until 06:00 UTC")
			env.Summary = "check_inventory(sku=" + a.SKU + ") failed: the warehouse API is down for maintenance"
			env.Error.RetryAfter = 10 * time.Minute
			env.Suggestion = toolresult.Options("retry after 06:00 UTC", "tell the user the stock cannot be checked right now")
			return env, nil
		}, &tool.FuncOptions{Idempotency: tool.Level2})
}

// ledgered returns the ticket the ledger holds for key, written by this
// process or an earlier one.
func (s *Set) ledgered(key string) (string, bool) {
	if s.opts.Ledger == "" {
		return "", false
	}
	data, err := os.ReadFile(s.opts.Ledger)
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if ticket, k, ok := strings.Cut(line, " "); ok && k == key && strings.HasPrefix(ticket, "T-") {
			return ticket, true
		}
	}
	return "", false
}

func (s *Set) notifyCustomer() tool.Tool {
	type in struct {
		Order   string `json:"order" pattern:"^o-[0-9]{5}$" jsonschema:"The order the message is about, e.g. o-00042."`
		Message string `json:"message" minLength:"1" maxLength:"500" jsonschema:"What to tell the customer."`
	}
	return tool.MustFunc("notify_customer",
		"Sends the customer of an order a message. It cannot be undone or deduplicated: each call sends one message.",
		func(ctx context.Context, a in) (string, error) {
			ci, _ := tool.CallInfoFrom(ctx)
			if s.opts.Ledger != "" {
				s.mu.Lock()
				defer s.mu.Unlock()
				f, err := os.OpenFile(s.opts.Ledger, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if err != nil {
					return "", tool.Errorf(toolresult.InternalError, "the message ledger cannot be opened: %v", err)
				}
				_, err = fmt.Fprintf(f, "notify %s\n", ci.ID)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return "", tool.Errorf(toolresult.InternalError, "the message could not be recorded: %v", err)
				}
			}
			return "sent to the customer of " + a.Order, nil
		}, &tool.FuncOptions{Idempotency: tool.Level0})
}
