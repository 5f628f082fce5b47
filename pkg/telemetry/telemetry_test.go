package telemetry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/envconfig"
	"github.com/recallhq/recall/pkg/telemetry"
)

func TestConfigFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		on   bool
		err  string
	}{
		{name: "nothing set", env: map[string]string{}},
		{name: "endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, on: true},
		{name: "traces endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, on: true},
		{name: "otlp exporter", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, on: true},
		{name: "console", env: map[string]string{"OTEL_TRACES_EXPORTER": "console"}, on: true},
		{name: "two exporters", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp, console"}, on: true},
		{name: "grpc", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, on: true},
		{name: "none wins over an endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}},
		{name: "disabled", env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}},
		{name: "unknown exporter", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, err: `OTEL_TRACES_EXPORTER: "zipkin" is not one of otlp, console, none`},
		{name: "unknown protocol", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, err: `OTEL_EXPORTER_OTLP_PROTOCOL: "http/json"`},
		{name: "unknown traces protocol", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "thrift"}, err: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "thrift"`},
		{name: "not a boolean", env: map[string]string{"OTEL_SDK_DISABLED": "maybe"}, err: "OTEL_SDK_DISABLED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cfg telemetry.Config
			err := envconfig.LoadInto(&cfg, tc.env)
			if err == nil {
				err = cfg.Validate()
			}
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.on, cfg.Enabled())
		})
	}
}

// TestStartExportsOverOTLP starts tracing from the environment as a binary
// does, against an OTLP/HTTP collector, and checks that the spans arrive
// when it stops, named for the binary unless OTEL_SERVICE_NAME says
// otherwise.
func TestStartExportsOverOTLP(t *testing.T) {
	var mu sync.Mutex
	var got []*coltracepb.ExportTraceServiceRequest
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || err != nil {
			http.Error(w, "want OTLP/HTTP protobuf on /v1/traces", http.StatusBadRequest)
			return
		}
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, &req)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(collector.Close)

	for _, tc := range []struct{ env, want string }{{"", "ingest"}, {"ingest-eu", "ingest-eu"}} {
		mu.Lock()
		got = nil
		mu.Unlock()
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
		t.Setenv("OTEL_SERVICE_NAME", tc.env)
		cfg, err := envconfig.Load[telemetry.Config]()
		require.NoError(t, err)
		stop, err := telemetry.Start(context.Background(), cfg, "ingest", testenv.Logger(t))
		require.NoError(t, err)
		require.True(t, telemetry.Enabled())
		_, span := otel.Tracer("test").Start(context.Background(), "work")
		span.End()
		require.NoError(t, stop(context.Background()))
		require.False(t, telemetry.Enabled(), "stopped")

		mu.Lock()
		require.Len(t, got, 1, "the batch is flushed on stop")
		rs := got[0].GetResourceSpans()
		mu.Unlock()
		require.Len(t, rs, 1)
		service := ""
		for _, kv := range rs[0].GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				service = kv.GetValue().GetStringValue()
			}
		}
		require.Equal(t, tc.want, service)
		require.Equal(t, "work", rs[0].GetScopeSpans()[0].GetSpans()[0].GetName())
	}
}

// TestNATSHeaderCarrier: trace context is written as traceparent and read
// whatever the header's case.
func TestNATSHeaderCarrier(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, name := range []string{"traceparent", "Traceparent", "TRACEPARENT"} {
		t.Run(name, func(t *testing.T) {
			exp := startTracing(t, telemetry.Config{Exporters: []string{"otlp"}})
			ctx := telemetry.Extract(context.Background(), nats.Header{name: {tp}})
			out := nats.Header{"Traceparent": {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}
			telemetry.Inject(ctx, out)
			require.Equal(t, nats.Header{"traceparent": {tp}}, out, "written in lower case, replacing another spelling")
			require.Empty(t, exp.GetSpans())
		})
	}
}
