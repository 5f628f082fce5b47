package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/recallhq/recall/pkg/events"
)

// Envelope is how one kind of event is read off the stream: its decoder
// (which validates) and the check that the body belongs on its subject.
type Envelope[T any] struct {
	Decode       func(raw []byte, opts events.ValidateOptions) (T, error)
	CheckSubject func(subject string, v *T) error
}

// The envelopes of the streams.
var (
	TurnEnvelope        = Envelope[events.Turn]{events.DecodeTurn, events.CheckSubject}
	CatalogEnvelope     = Envelope[events.CatalogItem]{events.DecodeCatalogItem, events.CheckCatalogSubject}
	ShelfEnvelope       = Envelope[events.ShelfEntry]{events.DecodeShelfEntry, events.CheckShelfSubject}
	AttributeEnvelope   = Envelope[events.AttributeEdit]{events.DecodeAttributeEdit, events.CheckAttributeEditSubject}
	ProfileTaskEnvelope = Envelope[events.ProfileTask]{events.DecodeProfileTask, events.CheckProfileTaskSubject}
	SummarizeEnvelope   = Envelope[events.SummarizeRequest]{events.DecodeSummarizeRequest, events.CheckSummarizeSubject}
)

// Read decodes and validates a message's body and checks it against the
// subject. Any failure is permanent: the same bytes fail the same way on every
// delivery, so the runner dead-letters them at once, with the reason.
func (e Envelope[T]) Read(m Message, lim events.Limits) (T, error) {
	v, err := e.Decode(m.Data, events.ValidateOptions{Limits: lim})
	if err == nil {
		err = e.CheckSubject(m.Subject, &v)
	}
	return v, Permanent(err)
}

// Batch is the shape of a handler that stores a batch at once: each message
// is prepared on its own, the prepared values are stored together, and when
// that fails each is stored alone, so that one value the database refuses
// cannot hold back the others (and is dead-lettered by itself after its
// deliveries run out). Handlers say only how a message becomes a value and
// how values are stored.
type Batch[T any] struct {
	// Prepare turns a message into the value to store. keep false acks the
	// message with nothing to store. An error fails this message only: a
	// permanent one (Envelope.Read's) dead-letters it, any other retries it.
	Prepare func(ctx context.Context, m Message) (v T, keep bool, err error)
	// Admit, when set, judges all the kept values at once before anything
	// is done with them (whose session a turn may enter: one query for the
	// batch). It returns one error per value, or nil for none; a value with
	// an error is left out, and its message is dead-lettered when the error
	// is permanent, retried otherwise.
	Admit func(ctx context.Context, vs []T) []error
	// Enrich, when set, works on all the kept values at once before they are
	// stored (one request to a remote model for the batch). It returns one
	// error per value, or nil for none; a value with an error is left out of
	// the store and its message retried.
	Enrich func(ctx context.Context, vs []T) []error
	// Store stores values in one transaction; on error nothing was stored,
	// except for ValueErrors: the others were stored, and each value with
	// an error is that value's answer.
	Store func(ctx context.Context, vs []T) error
	// Log, when set, hears of a batch stored one value at a time.
	Log *slog.Logger
}

// ValueErrors is what a Batch's Store returns when it stored the batch but
// left some values out, each for a reason of its own (a turn whose session
// belongs to another user): one error per value, nil for those stored.
// Each message gets its value's answer (a permanent error dead-letters it),
// rather than the batch being stored again one value at a time.
type ValueErrors []error

func (e ValueErrors) Error() string {
	n, first := 0, error(nil)
	for _, err := range e {
		if err != nil {
			if n++; first == nil {
				first = err
			}
		}
	}
	if first == nil {
		return "no value left out"
	}
	return fmt.Sprintf("%d of %d values left out, the first: %v", n, len(e), first)
}

// Handle is the batch handler.
func (b Batch[T]) Handle(ctx context.Context, msgs []Message) []error {
	errs := make([]error, len(msgs))
	vs := make([]T, 0, len(msgs))
	idx := make([]int, 0, len(msgs))
	for i, m := range msgs {
		v, keep, err := b.Prepare(ctx, m)
		switch {
		case err != nil:
			errs[i] = err
		case keep:
			vs, idx = append(vs, v), append(idx, i)
		}
	}
	for _, stage := range [...]func(context.Context, []T) []error{b.Admit, b.Enrich} {
		if stage == nil || len(vs) == 0 {
			continue
		}
		if serrs := stage(ctx, vs); serrs != nil {
			kept, keptIdx := vs[:0], idx[:0]
			for k, err := range serrs {
				if err != nil {
					errs[idx[k]] = err
					continue
				}
				kept, keptIdx = append(kept, vs[k]), append(keptIdx, idx[k])
			}
			vs, idx = kept, keptIdx
		}
	}
	if len(vs) == 0 {
		return errs
	}
	err := b.Store(ctx, vs)
	if ve, ok := errors.AsType[ValueErrors](err); ok && len(ve) == len(vs) {
		for k, e := range ve {
			errs[idx[k]] = e
		}
		return errs
	}
	if err == nil || len(vs) == 1 {
		for _, i := range idx {
			errs[i] = err
		}
		return errs
	}
	if b.Log != nil {
		b.Log.Warn("storing the batch failed; storing each message alone", "messages", len(vs), "error", err.Error())
	}
	for k := range vs {
		errs[idx[k]] = b.Store(ctx, vs[k:k+1])
	}
	return errs
}
