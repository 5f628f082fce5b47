package telemetry

import (
	"context"
	"strings"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
)

// Inject writes the trace context of ctx into a NATS message's headers
// (traceparent, and tracestate when there is one), so that whoever handles
// the message continues the trace. With tracing off it writes nothing.
func Inject(ctx context.Context, h nats.Header) {
	otel.GetTextMapPropagator().Inject(ctx, natsHeader(h))
}

// Extract returns ctx with the remote span context a NATS message's headers
// carry, when they carry one.
func Extract(ctx context.Context, h nats.Header) context.Context {
	return otel.GetTextMapPropagator().Extract(ctx, natsHeader(h))
}

// natsHeader carries trace context in NATS headers, whose names are case
// sensitive: it writes the names as W3C trace context spells them
// (traceparent, lower case) and reads them in any case, since a producer's
// client library may have set Traceparent.
type natsHeader nats.Header

func (h natsHeader) Get(key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	for k, v := range h {
		if len(v) > 0 && strings.EqualFold(k, key) {
			return v[0]
		}
	}
	return ""
}

func (h natsHeader) Set(key, value string) {
	for k := range h {
		if k != key && strings.EqualFold(k, key) {
			delete(h, k)
		}
	}
	h[key] = []string{value}
}

func (h natsHeader) Keys() []string {
	out := make([]string, 0, len(h))
	for k := range h {
		out = append(out, k)
	}
	return out
}
