package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"
)

// CatalogUpsert is one catalog event to apply: an item created, changed or
// deleted, with the event that says so (its time orders the item's events).
type CatalogUpsert struct {
	TenantID string
	Ref      string
	Type     string
	Title    string
	Attrs    json.RawMessage
	// Embedding is the item's vector, from EmbeddingModel; nil stores none
	// (a deleted item, or text with nothing to embed).
	Embedding      []float32
	EmbeddingModel string
	Deleted        bool
	EventID        string
	OccurredAt     time.Time
	// Force reports the item's shelf holders for a refresh even when nothing
	// changed: set it for a redelivered event, whose first attempt may have
	// committed without publishing the refresh.
	Force bool
}

// ShelfUpsert is one shelf entry to apply.
type ShelfUpsert struct {
	TenantID   string
	UserID     string
	Ref        string
	Status     string
	EventID    string
	OccurredAt time.Time
	// Force reports the user for a refresh even when nothing changed (see
	// CatalogUpsert.Force).
	Force bool
}

// Refresh is a user whose interest vector must be recomputed, as of At (the
// event time of the newest change that calls for it).
type Refresh struct {
	TenantID string
	UserID   string
	At       time.Time
}

// ApplySignals stores a batch of catalog and shelf events in one transaction and
// returns the users whose vectors they affect, each once: users whose shelf
// changed, and users who hold an item whose embedding changed. An event older
// than what is stored (by event time, then event id) changes nothing, so
// redelivery, duplicates and replays in any order leave the same rows.
func (s *Store) ApplySignals(ctx context.Context, items []CatalogUpsert, shelf []ShelfUpsert) ([]Refresh, error) {
	items = newestItems(items)
	shelf = newestShelf(shelf)
	refresh := map[UserRef]time.Time{}
	note := func(tenant, user string, at time.Time) {
		k := UserRef{TenantID: tenant, UserID: user}
		if cur, ok := refresh[k]; !ok || at.After(cur) {
			refresh[k] = at
		}
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var chTenant, chRef []string
		var chAt []time.Time
		if len(items) > 0 {
			rows, err := tx.Query(ctx, q(qCatalogUpsertBatch), catalogArgs(items)...)
			if err != nil {
				return fmt.Errorf("upsert catalog items: %w", err)
			}
			var tenant, ref string
			var at time.Time
			if _, err := pgx.ForEachRow(rows, []any{&tenant, &ref, &at}, func() error {
				chTenant, chRef, chAt = append(chTenant, tenant), append(chRef, ref), append(chAt, at)
				return nil
			}); err != nil {
				return fmt.Errorf("upsert catalog items: %w", err)
			}
		}
		if len(shelf) > 0 {
			n := len(shelf)
			tenant, user, ref, status, event := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
			at, force := make([]time.Time, n), make([]bool, n)
			for i, e := range shelf {
				tenant[i], user[i], ref[i], status[i], event[i], at[i], force[i] = e.TenantID, e.UserID, e.Ref, e.Status, e.EventID, e.OccurredAt, e.Force
			}
			if err := collectRefresh(ctx, tx, q(qShelfUpsertBatch), note, tenant, user, ref, status, at, event, force); err != nil {
				return fmt.Errorf("upsert shelf entries: %w", err)
			}
		}
		if len(chRef) > 0 {
			if err := collectRefresh(ctx, tx, q(qShelfHoldersByRefs), note, chTenant, chRef, chAt); err != nil {
				return fmt.Errorf("find holders of changed items: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("apply signals: %w", err)
	}
	out := make([]Refresh, 0, len(refresh))
	for k, at := range refresh {
		out = append(out, Refresh{TenantID: k.TenantID, UserID: k.UserID, At: at})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].TenantID != out[j].TenantID {
			return out[i].TenantID < out[j].TenantID
		}
		return out[i].UserID < out[j].UserID
	})
	return out, nil
}

// collectRefresh runs a query that returns (tenant, user, time) rows and notes each.
func collectRefresh(ctx context.Context, tx pgx.Tx, sql string, note func(string, string, time.Time), args ...any) error {
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	var tenant, user string
	var at time.Time
	_, err = pgx.ForEachRow(rows, []any{&tenant, &user, &at}, func() error {
		note(tenant, user, at)
		return nil
	})
	return err
}

func catalogArgs(items []CatalogUpsert) []any {
	n := len(items)
	tenant, ref, typ, title, model, event := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]*string, n), make([]string, n)
	attrs, emb, dims := make([]*string, n), make([]any, n), make([]*int32, n)
	deleted, force, at := make([]bool, n), make([]bool, n), make([]time.Time, n)
	for i, it := range items {
		tenant[i], ref[i], typ[i], title[i], event[i] = it.TenantID, it.Ref, it.Type, it.Title, it.EventID
		if len(it.Attrs) > 0 && string(it.Attrs) != "null" {
			attrs[i] = ptr(string(it.Attrs))
		}
		if len(it.Embedding) > 0 {
			emb[i], model[i], dims[i] = vectorArg(it.Embedding), ptr(it.EmbeddingModel), ptr(int32(len(it.Embedding)))
		}
		deleted[i], force[i], at[i] = it.Deleted, it.Force, it.OccurredAt
	}
	return []any{tenant, ref, typ, title, attrs, emb, model, dims, deleted, event, at, force}
}

// newer reports whether event (at, id) wins over (otherAt, otherID): the order
// the database applies, at the database's precision (microseconds, as pgx
// sends them), so that the batch keeps what the database would.
func newer(at time.Time, id string, otherAt time.Time, otherID string) bool {
	a, b := at.Truncate(time.Microsecond), otherAt.Truncate(time.Microsecond)
	if !a.Equal(b) {
		return a.After(b)
	}
	return id > otherID
}

// newestItems keeps the newest event per (tenant, ref): one statement cannot
// upsert a row twice, and the older event would lose anyway. Force carries over.
func newestItems(items []CatalogUpsert) []CatalogUpsert {
	type key struct{ tenant, ref string }
	at := map[key]int{}
	out := make([]CatalogUpsert, 0, len(items))
	for _, it := range items {
		k := key{it.TenantID, it.Ref}
		i, seen := at[k]
		if !seen {
			at[k] = len(out)
			out = append(out, it)
			continue
		}
		force := out[i].Force || it.Force
		if newer(it.OccurredAt, it.EventID, out[i].OccurredAt, out[i].EventID) {
			out[i] = it
		}
		out[i].Force = force
	}
	return out
}

// newestShelf keeps the newest entry per (tenant, user, ref).
func newestShelf(entries []ShelfUpsert) []ShelfUpsert {
	type key struct{ tenant, user, ref string }
	at := map[key]int{}
	out := make([]ShelfUpsert, 0, len(entries))
	for _, e := range entries {
		k := key{e.TenantID, e.UserID, e.Ref}
		i, seen := at[k]
		if !seen {
			at[k] = len(out)
			out = append(out, e)
			continue
		}
		force := out[i].Force || e.Force
		if newer(e.OccurredAt, e.EventID, out[i].OccurredAt, out[i].EventID) {
			out[i] = e
		}
		out[i].Force = force
	}
	return out
}

// CatalogItem is a stored catalog item.
type CatalogItem struct {
	Ref            string
	Type           string
	Title          string
	Attrs          json.RawMessage
	Embedding      []float32
	EmbeddingModel string
	Dims           int
	Deleted        bool
	SourceEventID  string
	SourceEventAt  time.Time
	UpdatedAt      time.Time
}

// CatalogItem returns one item of the tenant's catalog, or ErrNotFound.
func (t *Tenant) CatalogItem(ctx context.Context, ref string) (CatalogItem, error) {
	var it CatalogItem
	var emb *pgvector.Vector
	var model *string
	err := t.s.pool.QueryRow(ctx, q(qCatalogItemGet), t.id, ref).Scan(&it.Ref, &it.Type, &it.Title, &it.Attrs,
		&emb, &model, &it.Dims, &it.Deleted, &it.SourceEventID, &it.SourceEventAt, &it.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return it, ErrNotFound
	}
	if err != nil {
		return it, fmt.Errorf("get catalog item: %w", err)
	}
	if emb != nil {
		it.Embedding = emb.Slice()
	}
	if model != nil {
		it.EmbeddingModel = *model
	}
	it.SourceEventAt, it.UpdatedAt = it.SourceEventAt.UTC(), it.UpdatedAt.UTC()
	return it, nil
}

// ShelfVector is an item on a user's shelf with the catalog's embedding of it
// (nil while the catalog has none).
type ShelfVector struct {
	Ref        string
	Status     string
	OccurredAt time.Time
	Embedding  []float32
	Model      string
	// Title and Type are the catalog's ("" while it has no such item).
	Title string
	Type  string
}

// Shelf returns a user's shelf, removed items left out, with each item's
// embedding: the shelf's part of the user's interest vector.
func (t *Tenant) Shelf(ctx context.Context, userID string) ([]ShelfVector, error) {
	rows, err := t.s.pool.Query(ctx, q(qShelfListByUser), t.id, userID)
	if err != nil {
		return nil, fmt.Errorf("list shelf: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ShelfVector, error) {
		var sv ShelfVector
		var emb *pgvector.Vector
		err := r.Scan(&sv.Ref, &sv.Status, &sv.OccurredAt, &emb, &sv.Model, &sv.Title, &sv.Type)
		if emb != nil {
			sv.Embedding = emb.Slice()
		}
		sv.OccurredAt = sv.OccurredAt.UTC()
		return sv, err
	})
	if err != nil {
		return nil, fmt.Errorf("list shelf: %w", err)
	}
	return out, nil
}

// Recommendation is a catalog item near a user's interest vector.
type Recommendation struct {
	Ref   string
	Type  string
	Title string
	Attrs json.RawMessage
	// Distance is the cosine distance to the interest vector (0 = same
	// direction, 2 = opposite); Score is 1 - Distance, the cosine similarity.
	Distance float64
	Score    float64
}

// MaxRecommendations bounds k in Recommend: HNSW's candidate list
// (hnsw.ef_search) cannot exceed 1000, and it is kept at twice k.
const MaxRecommendations = 500

// Recommend returns the k items of the tenant's catalog nearest to vec (cosine),
// among items embedded by model with vec's dimension, leaving out deleted items
// and those on the user's shelf. It uses the HNSW index of that dimension when
// one exists (EnsureCatalogIndex) and the planner finds it cheaper, with
// iterative index scans so that the tenant and shelf filters still let k rows
// through; results are ordered exactly by distance either way.
func (t *Tenant) Recommend(ctx context.Context, userID string, vec []float32, model string, k int) ([]Recommendation, error) {
	dims := len(vec)
	if dims == 0 || dims > 16000 {
		return nil, fmt.Errorf("recommend: vector of %d dimensions", dims)
	}
	if k <= 0 || k > MaxRecommendations {
		return nil, fmt.Errorf("recommend: k %d outside 1..%d", k, MaxRecommendations)
	}
	var out []Recommendation
	err := pgx.BeginTxFunc(ctx, t.s.pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, q(qCatalogSearchSettings), strconv.Itoa(min(max(2*k, 40), 1000))); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, withDims(q(qCatalogNearest), dims), t.id, userID, pgvector.NewVector(vec), model, k)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Recommendation, error) {
			var rec Recommendation
			err := r.Scan(&rec.Ref, &rec.Type, &rec.Title, &rec.Attrs, &rec.Distance)
			rec.Score = 1 - rec.Distance
			return rec, err
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("recommend: %w", err)
	}
	return out, nil
}

// withDims puts a dimension into a query's {{dims}} placeholders. It is an int,
// so nothing but digits ever reaches the SQL text.
func withDims(sql string, dims int) string {
	return strings.ReplaceAll(sql, "{{dims}}", strconv.Itoa(dims))
}

// CatalogIndexName is the name of the HNSW index for one dimension.
func CatalogIndexName(dims int) string { return "catalog_items_hnsw_" + strconv.Itoa(dims) }

// MaxIndexedDims is the largest dimension pgvector's HNSW index accepts for
// the vector type; larger embeddings are searched exactly.
const MaxIndexedDims = 2000

// EnsureCatalogIndex creates the HNSW index for catalog embeddings of the given
// dimension, unless it exists. The embedding column has no fixed dimension, so
// the index is a partial expression index per dimension, created by the workers
// for the dimension their embedder produces. It is built concurrently (catalog
// writes go on), by one replica at a time, and a leftover invalid index from an
// interrupted build is rebuilt.
func (s *Store) EnsureCatalogIndex(ctx context.Context, dims int) error {
	if dims <= 0 || dims > MaxIndexedDims {
		return fmt.Errorf("catalog index: dimension %d outside 1..%d (pgvector's HNSW limit)", dims, MaxIndexedDims)
	}
	name := CatalogIndexName(dims)
	if valid, err := s.catalogIndexValid(ctx, s.pool, name); err != nil || valid {
		return err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("catalog index: %w", err)
	}
	defer conn.Release()
	unlock, err := tryLockLoop(ctx, conn, catalogIndexLock, int32(dims))
	if err != nil {
		return fmt.Errorf("catalog index %s: %w", name, err)
	}
	defer unlock()
	valid, err := s.catalogIndexValid(ctx, conn, name)
	switch {
	case err != nil:
		return err
	case valid:
		return nil
	}
	// Absent, or invalid: drop is a no-op for the former.
	if _, err := conn.Exec(ctx, withDims(q(qCatalogIndexDrop), dims)); err != nil {
		return fmt.Errorf("catalog index: drop invalid %s: %w", name, err)
	}
	if _, err := conn.Exec(ctx, withDims(q(qCatalogIndexCreate), dims)); err != nil {
		return fmt.Errorf("catalog index: create %s: %w", name, err)
	}
	return nil
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// catalogIndexValid reports whether the index exists and is valid.
func (s *Store) catalogIndexValid(ctx context.Context, db querier, name string) (bool, error) {
	var valid bool
	err := db.QueryRow(ctx, q(qCatalogIndexValid), name).Scan(&valid)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("catalog index: look up %s: %w", name, err)
	}
	return valid, nil
}

// tryLockLoop takes a session advisory lock by polling rather than waiting in
// pg_advisory_lock: a concurrent index build waits for every open transaction
// of the database to end, and a session blocked inside pg_advisory_lock is
// one, so a blocking wait would deadlock with the build it waits for.
func tryLockLoop(ctx context.Context, conn *pgxpool.Conn, k1, k2 int32) (func(), error) {
	wait := 50 * time.Millisecond
	for {
		var ok bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, k1, k2).Scan(&ok); err != nil {
			return nil, fmt.Errorf("lock: %w", err)
		}
		if ok {
			return func() {
				_, _ = conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, $2)`, k1, k2)
			}, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("lock: %w", ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}

// catalogIndexLock is the first key of the advisory lock EnsureCatalogIndex
// takes; the dimension is the second.
const catalogIndexLock int32 = 0x7265_6361 // "reca"
