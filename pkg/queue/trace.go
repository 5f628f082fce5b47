package queue

import (
	"context"
	"strconv"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/recallhq/recall/pkg/telemetry"
)

// Spans follow OpenTelemetry's messaging conventions: a producer span per
// publish call ("send <stream>") whose context every message of the call
// carries in its headers; a consumer span per message handled ("process
// <stream>"), child of that context, from the moment its batch is taken up
// to its ack, retry or dead letter; and a span for the handler's work on a
// batch ("handle <stream>"), which the database statements run under. A
// batch of one message is handled under that message's span, so one turn's
// trace runs unbroken from the producer to the commit; a larger batch is a
// trace of its own that links to each message's span.

// tracerName is the instrumentation scope of the spans this package makes.
const tracerName = "github.com/recallhq/recall/pkg/queue"

// Attributes of NATS that the conventions have no name for.
const (
	attrDeliveryCount = attribute.Key("messaging.nats.message.delivery_count")
	attrStreamSeq     = attribute.Key("messaging.nats.stream.sequence")
	attrStream        = attribute.Key("messaging.nats.stream.name")
)

var messagingSystem = semconv.MessagingSystemKey.String("nats")

// startSend starts the producer span of publishing msgs to stream and
// writes its context into every message's headers. With tracing off it
// returns nil and touches nothing.
func startSend(ctx context.Context, stream string, msgs []*nats.Msg) trace.Span {
	if !telemetry.Enabled() {
		return nil
	}
	attrs := []attribute.KeyValue{
		messagingSystem,
		semconv.MessagingOperationTypeSend,
		semconv.MessagingOperationName("send"),
		attrStream.String(stream),
	}
	if len(msgs) == 1 && msgs[0] != nil {
		attrs = append(attrs, semconv.MessagingDestinationName(msgs[0].Subject), semconv.MessagingMessageID(msgs[0].Header.Get(nats.MsgIdHdr)))
	} else {
		attrs = append(attrs, semconv.MessagingBatchMessageCount(len(msgs)))
	}
	ctx, span := otel.Tracer(tracerName).Start(ctx, "send "+stream, trace.WithSpanKind(trace.SpanKindProducer), trace.WithAttributes(attrs...))
	for _, m := range msgs {
		if m != nil {
			telemetry.Inject(ctx, m.Header)
		}
	}
	return span
}

// endSend ends a producer span (nil: none) with the publish's error.
func endSend(span trace.Span, err error) {
	if span == nil {
		return
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// runnerTracer is what a runner traces with, built once: the tracer, the
// span names and the attributes every message's span shares.
type runnerTracer struct {
	tracer              trace.Tracer
	processName, handle string
	consumer            attribute.KeyValue
	common              []attribute.KeyValue
}

func newRunnerTracer(stream, consumer string) *runnerTracer {
	c := semconv.MessagingConsumerGroupName(consumer)
	return &runnerTracer{
		tracer:      otel.Tracer(tracerName),
		processName: "process " + stream,
		handle:      "handle " + stream,
		consumer:    c,
		common: []attribute.KeyValue{
			messagingSystem,
			semconv.MessagingOperationTypeProcess,
			semconv.MessagingOperationName("process"),
			c,
			attrStream.String(stream),
		},
	}
}

// startProcess starts the consumer span of each message of a batch, child of
// the context its headers carry.
func (rt *runnerTracer) startProcess(ctx context.Context, msgs []Message) {
	// One buffer for the batch: a span copies its attributes.
	attrs := make([]attribute.KeyValue, 0, len(rt.common)+5)
	for i := range msgs {
		m := &msgs[i]
		attrs = append(attrs[:0], rt.common...)
		attrs = append(attrs,
			semconv.MessagingDestinationName(m.Subject),
			attrStreamSeq.Int64(int64(m.Seq)),
			attrDeliveryCount.Int64(int64(m.Deliveries)),
			semconv.MessagingMessageBodySize(len(m.Data)),
		)
		if id := m.EventID(); id != "" {
			attrs = append(attrs, semconv.MessagingMessageID(id))
		}
		_, m.span = rt.tracer.Start(telemetry.Extract(ctx, m.Header), rt.processName,
			trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(attrs...))
	}
}

// startHandle starts the span of the handler's work on a batch: under the
// message's span for a batch of one, otherwise a new trace linked to every
// message's span.
func (rt *runnerTracer) startHandle(ctx context.Context, msgs []Message) (context.Context, trace.Span) {
	opts := []trace.SpanStartOption{trace.WithAttributes(
		messagingSystem, rt.consumer,
		semconv.MessagingBatchMessageCount(len(msgs)),
	)}
	if len(msgs) == 1 {
		ctx = msgs[0].Context(ctx)
	} else {
		links := make([]trace.Link, len(msgs))
		for i, m := range msgs {
			links[i] = trace.Link{SpanContext: m.span.SpanContext()}
		}
		opts = append(opts, trace.WithNewRoot(), trace.WithLinks(links...))
	}
	return rt.tracer.Start(ctx, rt.handle, opts...)
}

// endHandle ends the batch's span with what the handler said: the messages
// that failed, and the first error.
func endHandle(span trace.Span, errs []error) {
	failed := 0
	for _, err := range errs {
		if err != nil {
			if failed == 0 {
				span.RecordError(err)
			}
			failed++
		}
	}
	if failed > 0 {
		span.SetAttributes(attribute.Int("recall.failed_messages", failed))
		span.SetStatus(codes.Error, strconv.Itoa(failed)+" of "+strconv.Itoa(len(errs))+" messages failed")
	}
	span.End()
}

// Outcomes of a message, the events its span ends with.
const (
	eventAck          = "ack"
	eventRetry        = "retry"
	eventDeadLettered = "dead-lettered"
)

// failSpan records err on a span and marks it failed.
func failSpan(span trace.Span, err error) {
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
}

// endProcess ends a message's span with an event saying what became of the
// message.
func endProcess(span trace.Span, event string, attrs ...attribute.KeyValue) {
	span.AddEvent(event, trace.WithAttributes(attrs...))
	span.End()
}
