package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Shelf statuses a shelf entry may carry. Removed takes an item off the shelf;
// it is stored like the others, so that an older entry replayed later cannot put
// the item back.
const (
	ShelfWant      = "want"
	ShelfReading   = "reading"
	ShelfRead      = "read"
	ShelfAbandoned = "abandoned"
	ShelfRemoved   = "removed"
)

// Limits of signal fields that are not configurable: they bound columns and
// index entries, not producer payloads.
const (
	// MaxRefBytes bounds an item reference, as for the items of a turn.
	MaxRefBytes = 512
	// MaxTitleBytes bounds a catalog item's title.
	MaxTitleBytes = 1024
	// MaxTypeBytes bounds a catalog item's type (book, film, music...).
	MaxTypeBytes = 64
	// MaxEmbeddingDims is pgvector's limit for a stored vector.
	MaxEmbeddingDims = 16000
)

// CatalogItem is one item of a tenant's catalog as the catalog owner publishes it:
// created, changed, or (Deleted) withdrawn. The newest event by occurred_at wins,
// so a replay or a late, older event never overwrites a newer one.
type CatalogItem struct {
	V        int    `json:"v"`
	ID       string `json:"id"`
	TenantID string `json:"tenant_id"`
	// OccurredAt is event time: it orders the events of one item.
	OccurredAt time.Time `json:"occurred_at"`
	// Ref is the item's stable reference, the key within the tenant's catalog
	// and what shelf entries and presented items refer to.
	Ref   string `json:"ref"`
	Type  string `json:"type,omitempty"`
	Title string `json:"title,omitempty"`
	// Attrs is a JSON object (author, genres, year...), stored as sent; its text
	// values feed the item's embedding when none is given.
	Attrs json.RawMessage `json:"attrs,omitempty"`
	// Embedding is the producer's own vector for the item, used when it has the
	// dimension of the embedder the deployment runs (and, when EmbeddingModel is
	// set, that embedder's model); otherwise the item is embedded from its text.
	Embedding      []float32 `json:"embedding,omitempty"`
	EmbeddingModel string    `json:"embedding_model,omitempty"`
	// Deleted withdraws the item from recommendations. Type and title may then
	// be omitted.
	Deleted bool `json:"deleted,omitempty"`

	badTime string
}

// ShelfEntry is a user's status for one catalog item: what they want to read,
// are reading, have read or abandoned, or took off their shelf. The newest entry
// by occurred_at wins per (user, ref).
type ShelfEntry struct {
	V          int       `json:"v"`
	ID         string    `json:"id"`
	TenantID   string    `json:"tenant_id"`
	UserID     string    `json:"user_id"`
	OccurredAt time.Time `json:"occurred_at"`
	Ref        string    `json:"ref"`
	Status     string    `json:"status"`

	badTime string
}

// ProfileTask asks the profiler to recompute one user's interest vector. It has
// no id of its own: tasks for the same user are interchangeable, which is what
// lets them be debounced (see eventmsg.ProfileTask).
type ProfileTask struct {
	V        int    `json:"v"`
	TenantID string `json:"tenant_id"`
	UserID   string `json:"user_id"`
	// RequestedAt is the event time the profile should reflect: the time of the
	// change that prompted the task (a shelf entry, a fact mention), or the
	// request time for an explicit refresh. Fact weights decay up to it.
	RequestedAt time.Time `json:"requested_at"`

	badTime string
}

type wireCatalogItem struct {
	V              int             `json:"v"`
	ID             string          `json:"id"`
	TenantID       string          `json:"tenant_id"`
	OccurredAt     wireTime        `json:"occurred_at"`
	Ref            string          `json:"ref"`
	Type           string          `json:"type"`
	Title          string          `json:"title"`
	Attrs          json.RawMessage `json:"attrs"`
	Embedding      []float32       `json:"embedding"`
	EmbeddingModel string          `json:"embedding_model"`
	Deleted        bool            `json:"deleted"`
}

type wireShelfEntry struct {
	V          int      `json:"v"`
	ID         string   `json:"id"`
	TenantID   string   `json:"tenant_id"`
	UserID     string   `json:"user_id"`
	OccurredAt wireTime `json:"occurred_at"`
	Ref        string   `json:"ref"`
	Status     string   `json:"status"`
}

// Attribute edit ops: put sets a single key's value or adds an item to a
// set; remove clears a single key, or takes one item out of a set (all of
// them when Value is empty).
const (
	AttributePut    = "put"
	AttributeRemove = "remove"
)

// AttributeEdit is a change to a user's attributes set explicitly, by the app
// or the user's settings: a value put or removed for one key of the
// attributes' schema (pkg/attribute). It is stored as an assertion of source
// explicit; which values are current follows from every assertion in event
// time, so a replay rebuilds the same attributes. The key and value are checked
// against the tenant's schema by the API before it publishes, and again by
// the worker that stores it.
type AttributeEdit struct {
	V          int       `json:"v"`
	ID         string    `json:"id"`
	TenantID   string    `json:"tenant_id"`
	UserID     string    `json:"user_id"`
	OccurredAt time.Time `json:"occurred_at"`
	Key        string    `json:"key"`
	Op         string    `json:"op"`
	Value      string    `json:"value,omitempty"`

	badTime string
}

type wireAttributeEdit struct {
	V          int      `json:"v"`
	ID         string   `json:"id"`
	TenantID   string   `json:"tenant_id"`
	UserID     string   `json:"user_id"`
	OccurredAt wireTime `json:"occurred_at"`
	Key        string   `json:"key"`
	Op         string   `json:"op"`
	Value      string   `json:"value"`
}

type wireProfileTask struct {
	V           int      `json:"v"`
	TenantID    string   `json:"tenant_id"`
	UserID      string   `json:"user_id"`
	RequestedAt wireTime `json:"requested_at"`
}

// DecodeCatalogItem parses and validates one encoded catalog item.
func DecodeCatalogItem(raw []byte, opts ValidateOptions) (CatalogItem, error) {
	var w wireCatalogItem
	if err := decodeEnvelope(raw, opts.Limits, &w); err != nil {
		return CatalogItem{}, err
	}
	it := CatalogItem{
		V: w.V, ID: w.ID, TenantID: w.TenantID, OccurredAt: w.OccurredAt.t, Ref: w.Ref, Type: w.Type,
		Title: w.Title, Attrs: w.Attrs, Embedding: w.Embedding, EmbeddingModel: w.EmbeddingModel,
		Deleted: w.Deleted, badTime: w.OccurredAt.bad,
	}
	return it, ValidateCatalogItem(&it, opts)
}

// ValidateCatalogItem checks a catalog item and fills defaults (V). It reports
// every problem at once.
func ValidateCatalogItem(it *CatalogItem, opts ValidateOptions) error {
	var fe fieldErrors
	checkVersion(&fe, &it.V)
	checkID(&fe, "id", it.ID, true, opts.Limits)
	checkID(&fe, "tenant_id", it.TenantID, true, opts.Limits)
	checkTime(&fe, "occurred_at", it.OccurredAt, it.badTime, opts)
	checkRef(&fe, "ref", it.Ref)
	switch {
	case it.Type == "" && !it.Deleted:
		fe.add("type", "required (book, film, music...) unless the item is deleted")
	case len(it.Type) > MaxTypeBytes:
		fe.add("type", "%d bytes, limit is %d", len(it.Type), MaxTypeBytes)
	case strings.ContainsFunc(it.Type, isControl):
		fe.add("type", "contains control characters")
	}
	switch {
	case strings.TrimSpace(it.Title) == "" && !it.Deleted:
		fe.add("title", "required unless the item is deleted")
	case len(it.Title) > MaxTitleBytes:
		fe.add("title", "%d bytes, limit is %d", len(it.Title), MaxTitleBytes)
	case strings.IndexByte(it.Title, 0) >= 0:
		fe.add("title", "contains a NUL character")
	}
	checkRaw(&fe, "attrs", it.Attrs, true)
	if len(it.Embedding) > MaxEmbeddingDims {
		fe.add("embedding", "%d components, limit is %d", len(it.Embedding), MaxEmbeddingDims)
	}
	switch {
	case it.EmbeddingModel != "" && len(it.Embedding) == 0:
		fe.add("embedding_model", "only meaningful with an embedding")
	case len(it.EmbeddingModel) > 128:
		fe.add("embedding_model", "%d bytes, limit is 128", len(it.EmbeddingModel))
	case strings.ContainsFunc(it.EmbeddingModel, isControl):
		fe.add("embedding_model", "contains control characters")
	}
	return fe.err()
}

// CheckCatalogSubject verifies that a catalog item arrived on its tenant's subject.
func CheckCatalogSubject(subject string, it *CatalogItem) error {
	return checkSignalSubject(subject, KindCatalog, it.TenantID, "")
}

// DecodeShelfEntry parses and validates one encoded shelf entry.
func DecodeShelfEntry(raw []byte, opts ValidateOptions) (ShelfEntry, error) {
	var w wireShelfEntry
	if err := decodeEnvelope(raw, opts.Limits, &w); err != nil {
		return ShelfEntry{}, err
	}
	e := ShelfEntry{
		V: w.V, ID: w.ID, TenantID: w.TenantID, UserID: w.UserID, OccurredAt: w.OccurredAt.t,
		Ref: w.Ref, Status: w.Status, badTime: w.OccurredAt.bad,
	}
	return e, ValidateShelfEntry(&e, opts)
}

// ValidateShelfEntry checks a shelf entry and fills defaults (V).
func ValidateShelfEntry(e *ShelfEntry, opts ValidateOptions) error {
	var fe fieldErrors
	checkSignal(&fe, &e.V, e.ID, e.TenantID, e.UserID, e.OccurredAt, e.badTime, opts)
	checkRef(&fe, "ref", e.Ref)
	switch e.Status {
	case ShelfWant, ShelfReading, ShelfRead, ShelfAbandoned, ShelfRemoved:
	case "":
		fe.add("status", "required: one of want, reading, read, abandoned, removed")
	default:
		fe.add("status", "unknown status %q: one of want, reading, read, abandoned, removed", ClipUTF8(e.Status, 32, "…"))
	}
	return fe.err()
}

// CheckShelfSubject verifies that a shelf entry arrived on its user's subject.
func CheckShelfSubject(subject string, e *ShelfEntry) error {
	return checkSignalSubject(subject, KindShelf, e.TenantID, e.UserID)
}

// MaxAttributeKeyBytes bounds an attribute edit's key (a schema's key
// names are shorter); MaxAttributeValueBytes its value, before the schema's
// own limit in characters.
const (
	MaxAttributeKeyBytes   = 64
	MaxAttributeValueBytes = 4096
)

// DecodeAttributeEdit parses and validates one encoded attribute edit.
func DecodeAttributeEdit(raw []byte, opts ValidateOptions) (AttributeEdit, error) {
	var w wireAttributeEdit
	if err := decodeEnvelope(raw, opts.Limits, &w); err != nil {
		return AttributeEdit{}, err
	}
	e := AttributeEdit{V: w.V, ID: w.ID, TenantID: w.TenantID, UserID: w.UserID, OccurredAt: w.OccurredAt.t,
		Key: w.Key, Op: w.Op, Value: w.Value, badTime: w.OccurredAt.bad}
	return e, ValidateAttributeEdit(&e, opts)
}

// ValidateAttributeEdit checks an attribute edit's envelope and fills
// defaults (V); its key and value are the schema's to judge.
func ValidateAttributeEdit(e *AttributeEdit, opts ValidateOptions) error {
	var fe fieldErrors
	checkSignal(&fe, &e.V, e.ID, e.TenantID, e.UserID, e.OccurredAt, e.badTime, opts)
	switch {
	case e.Key == "":
		fe.add("key", "required: a key of the profile's schema")
	case len(e.Key) > MaxAttributeKeyBytes:
		fe.add("key", "%d bytes, limit is %d", len(e.Key), MaxAttributeKeyBytes)
	}
	switch e.Op {
	case AttributePut:
		if strings.TrimSpace(e.Value) == "" {
			fe.add("value", "required with op put")
		}
	case AttributeRemove:
	case "":
		fe.add("op", "required: put or remove")
	default:
		fe.add("op", "unknown op %q: put or remove", ClipUTF8(e.Op, 32, "…"))
	}
	if len(e.Value) > MaxAttributeValueBytes {
		fe.add("value", "%d bytes, limit is %d", len(e.Value), MaxAttributeValueBytes)
	} else if strings.IndexByte(e.Value, 0) >= 0 {
		fe.add("value", "contains a NUL character")
	}
	return fe.err()
}

// CheckAttributeEditSubject verifies that an attribute edit arrived on its
// user's subject.
func CheckAttributeEditSubject(subject string, e *AttributeEdit) error {
	return checkSignalSubject(subject, KindAttributes, e.TenantID, e.UserID)
}

// DecodeProfileTask parses and validates one encoded profile task.
func DecodeProfileTask(raw []byte, opts ValidateOptions) (ProfileTask, error) {
	var w wireProfileTask
	if err := decodeEnvelope(raw, opts.Limits, &w); err != nil {
		return ProfileTask{}, err
	}
	t := ProfileTask{V: w.V, TenantID: w.TenantID, UserID: w.UserID, RequestedAt: w.RequestedAt.t, badTime: w.RequestedAt.bad}
	return t, ValidateProfileTask(&t, opts)
}

// ValidateProfileTask checks a profile task and fills defaults (V).
func ValidateProfileTask(t *ProfileTask, opts ValidateOptions) error {
	var fe fieldErrors
	checkVersion(&fe, &t.V)
	checkID(&fe, "tenant_id", t.TenantID, true, opts.Limits)
	checkID(&fe, "user_id", t.UserID, true, opts.Limits)
	checkTime(&fe, "requested_at", t.RequestedAt, t.badTime, opts)
	return fe.err()
}

// CheckProfileTaskSubject verifies that a task arrived on its user's subject.
func CheckProfileTaskSubject(subject string, t *ProfileTask) error {
	return checkSignalSubject(subject, KindProfileTask, t.TenantID, t.UserID)
}

// decodeEnvelope is the decoding every signal shares with turns: a size bound,
// UTF-8 checked before decoding (encoding/json would silently replace invalid
// bytes), and a type mismatch reported against the field that has it.
func decodeEnvelope(raw []byte, lim Limits, v any) error {
	if lim.MaxEventBytes > 0 && len(raw) > lim.MaxEventBytes {
		return &ValidationError{Fields: []FieldError{{Field: "(event)", Message: fmt.Sprintf("event is %d bytes, limit is %d", len(raw), lim.MaxEventBytes)}}}
	}
	if !utf8.Valid(raw) {
		return &ValidationError{Fields: []FieldError{{Field: "(event)", Message: "not valid UTF-8"}}}
	}
	if fe := surrogateFields(raw); len(fe) > 0 {
		return &ValidationError{Fields: fe}
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return &ValidationError{Fields: []FieldError{{Field: FieldPath(te.Field), Message: fmt.Sprintf("want %s, got a JSON %s", JSONKind(te.Type.Kind().String()), te.Value)}}}
		}
		return &ValidationError{Fields: []FieldError{{Field: "(event)", Message: "malformed JSON: " + err.Error()}}}
	}
	return nil
}

func checkVersion(fe *fieldErrors, v *int) {
	if *v == 0 {
		*v = Version
	}
	if *v != Version {
		fe.add("v", "unsupported version %d (this build understands %d)", *v, Version)
	}
}

// checkTime applies the rules every event time follows; the future-skew check
// only when opts.Now is set (at the edge), so that a worker's verdict never
// depends on when it runs.
// checkSignal checks what every user signal carries: its version (filled
// when 0), its id, tenant, user and event time.
func checkSignal(fe *fieldErrors, v *int, id, tenant, user string, at time.Time, badTime string, opts ValidateOptions) {
	checkVersion(fe, v)
	checkID(fe, "id", id, true, opts.Limits)
	checkID(fe, "tenant_id", tenant, true, opts.Limits)
	checkID(fe, "user_id", user, true, opts.Limits)
	checkTime(fe, "occurred_at", at, badTime, opts)
}

func checkTime(fe *fieldErrors, field string, t time.Time, bad string, opts ValidateOptions) {
	switch {
	case bad != "":
		fe.add(field, "%s", bad)
	case t.IsZero():
		fe.add(field, "required (RFC 3339 time, e.g. 2026-11-22T08:00:00Z)")
	default:
		if p := opts.Limits.TimeProblem(t, opts.Now); p != "" {
			fe.add(field, "%s", p)
		}
	}
}

// TimeProblem says what is wrong with t as the time of an event ("" when
// nothing): before 2000, or, when now is given and MaxFutureSkew is
// positive, more than MaxFutureSkew after now. Every event time is judged
// by it, and so is a moment a request asks about (the `at` of a context or
// a search: when a turn could have been). Between the two bounds every time
// is one PostgreSQL's timestamptz holds.
func (lim Limits) TimeProblem(t time.Time, now func() time.Time) string {
	switch {
	case t.Year() < 2000:
		return t.Format(time.RFC3339) + " is before 2000"
	case now != nil && lim.MaxFutureSkew > 0 && t.After(now().Add(lim.MaxFutureSkew)):
		return fmt.Sprintf("%s is more than %s in the future", t.Format(time.RFC3339), lim.MaxFutureSkew)
	}
	return ""
}

func checkRef(fe *fieldErrors, field, ref string) {
	switch {
	case ref == "":
		fe.add(field, "required: the stable reference of the item")
	case len(ref) > MaxRefBytes:
		fe.add(field, "%d bytes, limit is %d", len(ref), MaxRefBytes)
	case strings.IndexByte(ref, 0) >= 0:
		fe.add(field, "contains a NUL character")
	}
}

// HeaderDebounceUntil is set on a profile task to the end of its debounce
// bucket (RFC 3339, the publisher's clock). Tasks published for the same user
// until then were dropped as duplicates of this one, so the changes behind them
// are only covered if the profiler reads its inputs after that time; the
// profiler therefore holds the task until then (plus a grace for clock skew).
const HeaderDebounceUntil = "Recall-Debounce-Until"

// ProfileTaskMsgID is the dedupe id of a task for one user in the debounce
// bucket that starts at bucketStart: tenant:user:<unix ms>, with the ids
// encoded as subject tokens so that a ':' inside an id cannot make two users'
// keys equal.
func ProfileTaskMsgID(tenantID, userID string, bucketStart time.Time) string {
	return EncodeToken(tenantID) + ":" + EncodeToken(userID) + ":" + strconv.FormatInt(bucketStart.UnixMilli(), 10)
}
