package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/contrib/exporters/autoexport"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/sdk/trace"

	"github.com/toolwire/toolwire"
	"github.com/toolwire/toolwire/internal/exitcode"
	"github.com/toolwire/toolwire/otelhook"
)

// telemetry is the OpenTelemetry SDK of a run, configured the standard
// way, from the OTEL_* environment variables (autoexport):
// OTEL_TRACES_EXPORTER=console prints spans, otlp sends them to
// OTEL_EXPORTER_OTLP_ENDPOINT; OTEL_METRICS_EXPORTER likewise for the
// metrics. With none of them set, or OTEL_SDK_DISABLED=true, no SDK is
// started and the run has no telemetry hook at all.
type telemetry struct {
	traces  *trace.TracerProvider
	metrics *metric.MeterProvider
}

// startTelemetry starts the SDK the environment asks for; nil when it
// asks for none.
func startTelemetry(ctx context.Context, e *env) (*telemetry, error) {
	if strings.EqualFold(e.env("OTEL_SDK_DISABLED"), "true") {
		return nil, nil
	}
	otlp := e.env("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
	wantTraces := asked(e.env("OTEL_TRACES_EXPORTER"), otlp || e.env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "")
	wantMetrics := asked(e.env("OTEL_METRICS_EXPORTER"), otlp || e.env("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != "")
	if !wantTraces && !wantMetrics {
		return nil, nil
	}
	res := resource.Default() // with OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
	if e.env("OTEL_SERVICE_NAME") == "" && !strings.Contains(e.env("OTEL_RESOURCE_ATTRIBUTES"), "service.name=") {
		if named, err := resource.Merge(res, resource.NewSchemaless(attribute.String("service.name", "toolwire"))); err == nil {
			res = named
		}
	}
	t := &telemetry{}
	if wantTraces {
		exp, err := autoexport.NewSpanExporter(ctx)
		if err != nil {
			return nil, exitcode.Usagef("OTEL_TRACES_EXPORTER: %v", err)
		}
		t.traces = trace.NewTracerProvider(trace.WithBatcher(exp), trace.WithResource(res))
	}
	if wantMetrics {
		r, err := autoexport.NewMetricReader(ctx)
		if err != nil {
			t.shutdown(ctx)
			return nil, exitcode.Usagef("OTEL_METRICS_EXPORTER: %v", err)
		}
		t.metrics = metric.NewMeterProvider(metric.WithReader(r), metric.WithResource(res))
	}
	return t, nil
}

// asked reports whether an OTEL_*_EXPORTER value asks for an exporter:
// any but "none"; unset, only when an OTLP endpoint is set.
func asked(exporter string, endpoint bool) bool {
	if exporter == "" {
		return endpoint
	}
	return exporter != "none"
}

// addTelemetry starts the SDK the environment asks for and adds to cfg
// the hook that records the runs of the agent named agent, talking to
// the model of spec (PROVIDER:NAME). It returns nil, and adds nothing,
// when the environment asks for no telemetry.
func addTelemetry(ctx context.Context, e *env, cfg *toolwire.Config, agent, spec string) (*telemetry, error) {
	t, err := startTelemetry(ctx, e)
	if t == nil || err != nil {
		return nil, err
	}
	if err := t.add(cfg, agent, spec); err != nil {
		t.flush(e)
		return nil, err
	}
	return t, nil
}

// add adds to cfg the hook that records the runs of the agent named
// agent, talking to the model of spec; with a nil t, nothing.
func (t *telemetry) add(cfg *toolwire.Config, agent, spec string) error {
	if t == nil {
		return nil
	}
	o := &otelhook.Options{Agent: agent, Provider: providerName(spec)}
	if t.traces != nil {
		o.TracerProvider = t.traces
	}
	if t.metrics != nil {
		o.MeterProvider = t.metrics
	}
	h, err := otelhook.New(o)
	if err != nil {
		return &exitcode.Error{Code: exitcode.Internal, Err: err}
	}
	cfg.Hooks = append(cfg.Hooks, h)
	return nil
}

// providerName is gen_ai.provider.name for a model spec; "" leaves it
// to the model's dialect.
func providerName(spec string) string {
	p, _, _ := strings.Cut(spec, ":")
	switch p {
	case "openai", "openai-responses":
		return "openai"
	case "anthropic":
		return "anthropic"
	case "gemini":
		return "gcp.gemini"
	case "replay":
		return "toolwire.replay" // a recorded run, not the provider
	}
	return ""
}

// flush sends what the exporters still hold, for at most 5 seconds,
// and says on stderr when it could not.
func (t *telemetry) flush(e *env) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := t.shutdown(ctx); err != nil {
		fmt.Fprintf(e.stderr, "toolwire: telemetry: %s\n", printable(err.Error()))
	}
}

// shutdown sends what the exporters still hold.
func (t *telemetry) shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var errs []error
	if t.traces != nil {
		errs = append(errs, t.traces.Shutdown(ctx))
	}
	if t.metrics != nil {
		errs = append(errs, t.metrics.Shutdown(ctx))
	}
	return errors.Join(errs...)
}
