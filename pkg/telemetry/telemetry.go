// Package telemetry is Recall's OpenTelemetry tracing: it sets up the
// process's tracer provider and the W3C trace-context propagator from the
// standard OTEL_* variables, and carries trace context across NATS message
// headers. Tracing is off unless the environment asks for it, and off means
// no provider at all: the instrumented code checks Enabled once, when it is
// built, and does nothing per request or message.
package telemetry

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Config is what decides whether and where a process exports traces, read
// from the standard OpenTelemetry variables. The SDK reads the others itself
// when tracing is on: OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_TIMEOUT
// and their _TRACES_ forms, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER and
// OTEL_TRACES_SAMPLER_ARG, OTEL_BSP_*, OTEL_SPAN_*_LIMIT.
type Config struct {
	// Disabled turns tracing off whatever else is set (OTEL_SDK_DISABLED=true).
	Disabled bool `env:"OTEL_SDK_DISABLED" envDefault:"false"`
	// Exporters are where spans go: otlp, console (stdout), none. Unset:
	// otlp when an OTLP endpoint is set, otherwise tracing is off.
	Exporters []string `env:"OTEL_TRACES_EXPORTER" envSeparator:","`
	// Endpoint and TracesEndpoint are the OTLP collector's address (the
	// second for traces alone); either one set turns tracing on.
	Endpoint       string `env:"OTEL_EXPORTER_OTLP_ENDPOINT"`
	TracesEndpoint string `env:"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"`
	// Protocol is OTLP's transport: http/protobuf or grpc; TracesProtocol,
	// when set, is the traces' own.
	Protocol       string `env:"OTEL_EXPORTER_OTLP_PROTOCOL" envDefault:"http/protobuf"`
	TracesProtocol string `env:"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"`
	// ServiceName names the process in traces; unset, the binary's name
	// (api, ingest, ...; recall for `recall run`).
	ServiceName string `env:"OTEL_SERVICE_NAME"`
}

// The exporters OTEL_TRACES_EXPORTER may name.
const (
	exporterOTLP    = "otlp"
	exporterConsole = "console"
	exporterNone    = "none"
)

// exporters are the exporters named, without blanks and none.
func (c Config) exporters() []string {
	var out []string
	for _, e := range c.Exporters {
		if e = strings.TrimSpace(e); e != "" && e != exporterNone {
			out = append(out, e)
		}
	}
	return out
}

// Enabled reports whether c turns tracing on: not disabled, and either an
// exporter other than none is named, or none is named and an OTLP endpoint
// is set.
func (c Config) Enabled() bool {
	if c.Disabled {
		return false
	}
	if len(c.Exporters) > 0 {
		return len(c.exporters()) > 0
	}
	return c.Endpoint != "" || c.TracesEndpoint != ""
}

// protocol is the OTLP transport for traces.
func (c Config) protocol() string { return cmp.Or(c.TracesProtocol, c.Protocol, "http/protobuf") }

// Validate names the variable of the first value tracing cannot work with.
func (c Config) Validate() error {
	for _, e := range c.exporters() {
		if e != exporterOTLP && e != exporterConsole {
			return fmt.Errorf("OTEL_TRACES_EXPORTER: %q is not one of otlp, console, none", e)
		}
	}
	if p := c.protocol(); p != "http/protobuf" && p != "grpc" {
		name := "OTEL_EXPORTER_OTLP_PROTOCOL"
		if c.TracesProtocol != "" {
			name = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
		}
		return fmt.Errorf("%s: %q is not one of http/protobuf, grpc", name, p)
	}
	return nil
}

// newExporter builds the exporter one name of OTEL_TRACES_EXPORTER asks for.
// The OTLP exporters read their endpoint, headers and timeout from the
// environment themselves.
func (c Config) newExporter(ctx context.Context, name string) (sdktrace.SpanExporter, error) {
	switch {
	case name == exporterConsole:
		return stdouttrace.New()
	case c.protocol() == "grpc":
		return otlptracegrpc.New(ctx)
	default:
		return otlptracehttp.New(ctx)
	}
}

// enabled is whether the process's tracer provider is a real one.
var enabled atomic.Bool

// Enabled reports whether the process traces. Instrumented code asks once,
// when it is built, and with tracing off creates no span, reads and writes
// no header and allocates nothing per request or message.
func Enabled() bool { return enabled.Load() }

// Stop flushes the spans not yet exported and turns tracing off; ctx bounds
// the flush.
type Stop func(ctx context.Context) error

// Start sets up tracing for the process from cfg: with tracing on, a tracer
// provider that batches spans to the exporters cfg names, described by a
// resource whose service.name is cfg.ServiceName or name, and the W3C
// trace-context propagator, both installed as the process's globals. With
// tracing off it installs nothing. Call the Stop it returns once the process
// has drained, so the last spans are flushed.
func Start(ctx context.Context, cfg Config, name string, log *slog.Logger) (Stop, error) {
	return start(ctx, cfg, name, log, nil)
}

// start is Start; exp, when set, receives every span as it ends instead of
// the exporters cfg names (tests).
func start(ctx context.Context, cfg Config, name string, log *slog.Logger, exp sdktrace.SpanExporter) (Stop, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !cfg.Enabled() {
		return func(context.Context) error { return nil }, nil
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName(name)),
		resource.WithFromEnv(), // OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME
		resource.WithTelemetrySDK(),
		resource.WithHost(),
	)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("tracing resource: %w", err)
	}
	if cfg.ServiceName != "" {
		res, _ = resource.Merge(res, resource.NewSchemaless(semconv.ServiceName(cfg.ServiceName)))
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if exp != nil {
		opts = append(opts, sdktrace.WithSyncer(exp))
	} else {
		names := cfg.exporters()
		if len(names) == 0 {
			names = []string{exporterOTLP}
		}
		slices.Sort(names)
		for _, n := range slices.Compact(names) {
			e, err := cfg.newExporter(ctx, n)
			if err != nil {
				return nil, fmt.Errorf("tracing exporter %s: %w", n, err)
			}
			opts = append(opts, sdktrace.WithBatcher(e))
		}
	}
	tp := sdktrace.NewTracerProvider(opts...)
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("tracing", "error", err.Error())
	}))
	use(tp)
	service, _ := res.Set().Value(semconv.ServiceNameKey)
	log.Info("tracing on", "service", service.Emit(), "exporters", cfg.Exporters, "protocol", cfg.protocol())
	return func(ctx context.Context) error {
		use(nil)
		if err := tp.Shutdown(ctx); err != nil {
			return fmt.Errorf("flush traces: %w", err)
		}
		return nil
	}, nil
}

// use installs tp and the W3C trace-context propagator as the process's
// globals; nil turns tracing off (a no-op provider, no propagator).
func use(tp trace.TracerProvider) {
	if tp == nil {
		enabled.Store(false)
		otel.SetTracerProvider(noop.NewTracerProvider())
		otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator())
		return
	}
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	enabled.Store(true)
}
