package queue

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recallhq/recall/pkg/contract"
	"github.com/recallhq/recall/pkg/events"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// DeadLetterEntry is one message of the dead-letter stream as an operator sees
// it: where it came from, why it was given up on, and the original payload.
type DeadLetterEntry struct {
	// Seq is the entry's sequence in the dead-letter stream: the handle for
	// showing, re-driving and deleting it.
	Seq        uint64
	Consumer   string
	Stream     string
	StreamSeq  uint64
	Subject    string
	EventID    string
	Deliveries uint64
	FailedAt   time.Time
	Reason     string
	// Data and Header are the original message (dead-letter headers removed,
	// the original Nats-Msg-Id restored).
	Data   []byte
	Header nats.Header
}

// DLQFilter is the subject filter for one consumer's dead letters ("" for all).
func DLQFilter(consumer string) string {
	if consumer == "" {
		return events.DLQSubjects
	}
	return events.SubjectRoot + ".dlq." + consumer + ".>"
}

// dlqScope is the dead-letter subjects of the original subjects under filter
// (a scoped filter such as "recall.turns.acme.>"), of one consumer ("" for
// any): recall.dlq.<consumer>.<filter without "recall.">.
func dlqScope(consumer, filter string) string {
	tok := "*"
	if consumer != "" {
		tok = events.EncodeToken(consumer)
	}
	return events.SubjectRoot + ".dlq." + tok + "." + strings.TrimPrefix(filter, events.SubjectRoot+".")
}

// TenantDLQFilters are the subject filters of one tenant's dead letters (of
// consumer, "" for all): one per subject family that carries a tenant.
// Subjects of no known family carry no tenant and match none.
func TenantDLQFilters(tenant, consumer string) ([]string, error) {
	kinds := make([]string, 0, len(idTokens))
	for k := range idTokens {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	out := make([]string, 0, len(kinds))
	for _, k := range kinds {
		scoped, _, err := ScopeFilter(events.SubjectRoot+"."+k+".>", tenant, "")
		if err != nil {
			return nil, err
		}
		out = append(out, dlqScope(consumer, scoped))
	}
	return out, nil
}

// ListDeadLetters calls fn for every dead letter of consumer ("" for all),
// oldest first. It reads the stream directly and leaves no consumer behind.
func ListDeadLetters(ctx context.Context, js jetstream.JetStream, consumer string, fn func(DeadLetterEntry) error) error {
	return walkDeadLetters(ctx, js, []string{DLQFilter(consumer)}, 1, fn)
}

// errPageFull stops a walk once a page has one entry more than it shows.
var errPageFull = errors.New("page full")

// TenantDeadLetters returns up to limit dead letters of one tenant (of
// consumer, "" for all) with a sequence above after, oldest first, and
// whether there are more. Only the tenant's subjects are read.
func TenantDeadLetters(ctx context.Context, js jetstream.JetStream, tenant, consumer string, after uint64, limit int) ([]DeadLetterEntry, bool, error) {
	filters, err := TenantDLQFilters(tenant, consumer)
	if err != nil {
		return nil, false, err
	}
	var out []DeadLetterEntry
	err = walkDeadLetters(ctx, js, filters, after+1, func(e DeadLetterEntry) error {
		if len(out) == limit {
			return errPageFull
		}
		out = append(out, e)
		return nil
	})
	if errors.Is(err, errPageFull) {
		return out, true, nil
	}
	return out, false, err
}

// walkDeadLetters calls fn for the dead letters matching any of filters, from
// sequence from on, in stream order, each once, until fn returns an error. It
// keeps the next match of each filter and takes the lowest, so the server
// skips whatever matches none of them.
func walkDeadLetters(ctx context.Context, js jetstream.JetStream, filters []string, from uint64, fn func(DeadLetterEntry) error) error {
	s, err := js.Stream(ctx, DLQStream)
	if err != nil {
		return fmt.Errorf("dead-letter stream: %w", err)
	}
	next := make([]*jetstream.RawStreamMsg, len(filters))
	fetch := func(i int, seq uint64) error {
		raw, err := s.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(filters[i]))
		switch {
		case errors.Is(err, jetstream.ErrMsgNotFound):
			next[i] = nil
		case err != nil:
			return fmt.Errorf("read dead letter from %d: %w", seq, err)
		default:
			next[i] = raw
		}
		return nil
	}
	for i := range filters {
		if err := fetch(i, from); err != nil {
			return err
		}
	}
	for {
		var low *jetstream.RawStreamMsg
		for _, m := range next {
			if m != nil && (low == nil || m.Sequence < low.Sequence) {
				low = m
			}
		}
		if low == nil {
			return nil
		}
		if err := fn(parseDeadLetter(low)); err != nil {
			return err
		}
		for i, m := range next {
			if m != nil && m.Sequence == low.Sequence {
				if err := fetch(i, low.Sequence+1); err != nil {
					return err
				}
			}
		}
	}
}

// Tenant is the tenant of the dead letter's original subject; ok is false for
// a subject that carries none.
func (e DeadLetterEntry) Tenant() (tenant string, ok bool) {
	t, err := events.SubjectTenant(e.Subject)
	return t, err == nil
}

// Wire is the entry as /v1 and `recall dlq` show it (contract.DeadLetter):
// the payload as text when it is UTF-8 (it nearly always is: JSON), as
// base64 otherwise.
func (e DeadLetterEntry) Wire() contract.DeadLetter {
	data := base64.StdEncoding.EncodeToString(e.Data)
	if utf8.Valid(e.Data) {
		data = string(e.Data)
	}
	return contract.DeadLetter{Seq: e.Seq, Consumer: e.Consumer, Stream: e.Stream, StreamSeq: e.StreamSeq, Subject: e.Subject,
		EventID: e.EventID, Deliveries: e.Deliveries, FailedAt: e.FailedAt, Reason: e.Reason, Data: data, Header: e.Header}
}

// ErrNoDeadLetter is returned by GetDeadLetter for a sequence the dead-letter
// stream does not hold.
var ErrNoDeadLetter = errors.New("not found")

// GetDeadLetter reads one dead letter by its sequence.
func GetDeadLetter(ctx context.Context, js jetstream.JetStream, seq uint64) (DeadLetterEntry, error) {
	s, err := js.Stream(ctx, DLQStream)
	if err != nil {
		return DeadLetterEntry{}, fmt.Errorf("dead-letter stream: %w", err)
	}
	raw, err := s.GetMsg(ctx, seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return DeadLetterEntry{}, fmt.Errorf("dead letter %d: %w (already re-driven or deleted?)", seq, ErrNoDeadLetter)
	}
	if err != nil {
		return DeadLetterEntry{}, fmt.Errorf("dead letter %d: %w", seq, err)
	}
	return parseDeadLetter(raw), nil
}

func parseDeadLetter(raw *jetstream.RawStreamMsg) DeadLetterEntry {
	h := raw.Header
	e := DeadLetterEntry{
		Seq:      raw.Sequence,
		Consumer: h.Get(HeaderConsumer),
		Stream:   h.Get(HeaderStream),
		Subject:  h.Get(HeaderSubject),
		EventID:  h.Get(HeaderOriginalMsgID),
		Reason:   h.Get(HeaderReason),
		Data:     raw.Data,
		Header:   nats.Header{},
	}
	e.StreamSeq, _ = strconv.ParseUint(h.Get(HeaderStreamSeq), 10, 64)
	e.Deliveries, _ = strconv.ParseUint(h.Get(HeaderDeliveries), 10, 64)
	e.FailedAt, _ = time.Parse(time.RFC3339Nano, h.Get(HeaderFailedAt))
	if e.Subject == "" {
		// Older entries without the header: the subject is in the DLQ subject.
		if rest, ok := strings.CutPrefix(raw.Subject, events.SubjectRoot+".dlq."+e.Consumer+"."); ok {
			e.Subject = events.SubjectRoot + "." + rest
		}
	}
	for k, v := range h {
		if strings.HasPrefix(k, "Recall-Dlq-") {
			continue
		}
		e.Header[k] = v
	}
	if e.EventID != "" {
		e.Header.Set(jetstream.MsgIDHeader, e.EventID)
	}
	return e
}

// ErrStillDuplicate is returned by Redrive when the stream still remembers the
// original message id: the server would drop the copy as a duplicate. Re-drive
// after the stream's duplicate window has passed (a *DuplicateError says when).
var ErrStillDuplicate = errors.New("the original message id is still inside the stream's duplicate window; re-drive after it has passed")

// DuplicateError is the ErrStillDuplicate of one re-drive, with what an
// operator needs to act on it: the stream forgets the message id a duplicate
// window after it stored the copy holding it, and a re-drive works from then
// on.
type DuplicateError struct {
	// Seq is the dead letter's sequence; MsgID the message id the stream
	// remembers, in Stream at StreamSeq.
	Seq       uint64
	MsgID     string
	Stream    string
	StreamSeq uint64
	// Window is the stream's duplicate window.
	Window time.Duration
	// Until is when the stream forgets the id: the stored copy's time plus
	// Window. Zero when the stream could not be read to tell.
	Until time.Time
}

func (e *DuplicateError) Error() string {
	if e.Until.IsZero() {
		return fmt.Sprintf("re-drive dead letter %d: stream %s still remembers message id %q: %v", e.Seq, e.Stream, e.MsgID, ErrStillDuplicate)
	}
	return fmt.Sprintf("re-drive dead letter %d: stream %s remembers message id %q until %s (its duplicate window is %s from the copy it stored); re-drive after that",
		e.Seq, e.Stream, e.MsgID, e.Until.UTC().Format(time.RFC3339), e.Window)
}

// Unwrap makes errors.Is(err, ErrStillDuplicate) hold.
func (e *DuplicateError) Unwrap() error { return ErrStillDuplicate }

// Redrive publishes a dead letter back to its original subject, with its
// original headers and message id, and deletes it from the dead-letter stream
// once the server has stored the copy, or holds a newer copy of the same
// message already (another dead letter of it re-driven first). Every consumer
// of that subject sees the message again; the workers' writes are idempotent,
// so those that had already handled it change nothing. While the stream still
// holds the dead-lettered copy's id, it returns a *DuplicateError.
func Redrive(ctx context.Context, js jetstream.JetStream, e DeadLetterEntry) error {
	if e.Subject == "" {
		return fmt.Errorf("dead letter %d: no original subject", e.Seq)
	}
	msg := nats.NewMsg(e.Subject)
	msg.Data = e.Data
	for k, v := range e.Header {
		msg.Header[k] = v
	}
	ack, err := js.PublishMsg(ctx, msg)
	if err != nil {
		return fmt.Errorf("re-drive dead letter %d to %s: %w", e.Seq, e.Subject, err)
	}
	if ack.Duplicate {
		// The stream holds this message id at ack.Sequence. A copy stored
		// after the one that was dead-lettered (a re-drive of another dead
		// letter of the same message, or its producer sending it again) is
		// being delivered to every consumer: the message is back, and this
		// dead letter goes. The dead-lettered copy itself, still inside the
		// window, is not.
		if ack.Stream != e.Stream || ack.Sequence <= e.StreamSeq {
			return duplicateError(ctx, js, e, ack)
		}
	}
	return DeleteDeadLetter(ctx, js, e.Seq)
}

// duplicateError says until when the stream of ack remembers the id of the
// copy it holds at ack.Sequence. The server forgets an id a window after it
// stored the message, whatever duplicates came since.
func duplicateError(ctx context.Context, js jetstream.JetStream, e DeadLetterEntry, ack *jetstream.PubAck) error {
	de := &DuplicateError{Seq: e.Seq, MsgID: e.Header.Get(jetstream.MsgIDHeader), Stream: ack.Stream, StreamSeq: ack.Sequence}
	s, err := js.Stream(ctx, ack.Stream)
	if err != nil {
		return de
	}
	de.Window = s.CachedInfo().Config.Duplicates
	stored, err := s.GetMsg(ctx, ack.Sequence)
	if err != nil {
		return de
	}
	de.Until = stored.Time.Add(de.Window).UTC()
	return de
}

// RedriveMessage re-drives the message of dead letter e once, for every
// consumer that gave up on it: the copy goes to all of them, so their own dead
// letters of that message (same stream and stream sequence) are removed with
// e's rather than published again. It returns the sequences of those others.
func RedriveMessage(ctx context.Context, js jetstream.JetStream, e DeadLetterEntry) ([]uint64, error) {
	var others []uint64
	if e.StreamSeq != 0 && e.Subject != "" {
		err := walkDeadLetters(ctx, js, []string{dlqScope("", e.Subject)}, 1, func(o DeadLetterEntry) error {
			if o.Seq != e.Seq && o.Stream == e.Stream && o.StreamSeq == e.StreamSeq && o.Subject == e.Subject {
				others = append(others, o.Seq)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("other dead letters of %d: %w", e.Seq, err)
		}
	}
	if err := Redrive(ctx, js, e); err != nil {
		return nil, err
	}
	removed := make([]uint64, 0, len(others))
	for _, seq := range others {
		if err := DeleteDeadLetter(ctx, js, seq); err != nil {
			return removed, err
		}
		removed = append(removed, seq)
	}
	return removed, nil
}

// DeleteDeadLetter removes one dead letter for good.
func DeleteDeadLetter(ctx context.Context, js jetstream.JetStream, seq uint64) error {
	s, err := js.Stream(ctx, DLQStream)
	if err != nil {
		return fmt.Errorf("dead-letter stream: %w", err)
	}
	if err := s.DeleteMsg(ctx, seq); err != nil {
		return fmt.Errorf("delete dead letter %d: %w", seq, err)
	}
	return nil
}

// DLQSubject is where a message rejected by a consumer goes. The original subject
// (minus the root) is kept, so dead letters of one user can be purged too.
func DLQSubject(consumer, original string) string {
	rest, ok := strings.CutPrefix(original, events.SubjectRoot+".")
	if !ok || rest == "" {
		rest = "other." + events.EncodeToken(original)
	}
	return events.SubjectRoot + ".dlq." + events.EncodeToken(consumer) + "." + rest
}
