package store

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/recallhq/recall/pkg/attribute"
)

// AssertionRow is an assertion about one user of one tenant, as the workers
// that make assertions store them in batches.
type AssertionRow struct {
	TenantID string
	UserID   string
	attribute.Assertion
	// Embedding of a statement's text by Model (the key statements only);
	// nil for none.
	Embedding []float32
	Model     string
}

// RecordAssertions stores assertions (normalized by attribute.Normalize);
// one already stored (the same event, key, item and op) is left as it is,
// so a redelivery or a replay changes nothing, except that a statement
// stored without an embedding takes the one given (a replay with an
// embedder). It returns how many were new or took their embedding.
func (s *Store) RecordAssertions(ctx context.Context, rows []AssertionRow) (int64, error) {
	n, _, err := recordAssertions(ctx, s.pool, rows)
	return n, err
}

// RecordAssertionsNew is RecordAssertions answering which of rows were
// stored now (not before): the assertions a change feed tells of. A
// statement that only took its embedding is not among them.
func (s *Store) RecordAssertionsNew(ctx context.Context, rows []AssertionRow) ([]AssertionRow, error) {
	_, stored, err := recordAssertions(ctx, s.pool, rows)
	if err != nil {
		return nil, err
	}
	return newAssertions(rows, stored), nil
}

// newAssertions are those of rows whose keys are among stored (the keys
// qAttributeAssertionInsertBatch returned): of rows alike in the batch,
// only the first was stored.
func newAssertions(rows []AssertionRow, stored map[AssertionKey]bool) []AssertionRow {
	if len(stored) == 0 {
		return nil
	}
	stored = maps.Clone(stored)
	var out []AssertionRow
	for _, r := range rows {
		k := AssertionKey{r.TenantID, r.UserID, r.EventID, r.Key, r.Item, r.Op}
		if stored[k] {
			delete(stored, k)
			out = append(out, r)
		}
	}
	return out
}

// storedKeys reads qAttributeAssertionInsertBatch's rows: the keys of the
// assertions it stored.
func storedKeys(res pgx.Rows) (map[AssertionKey]bool, error) {
	stored := map[AssertionKey]bool{}
	var k AssertionKey
	if _, err := pgx.ForEachRow(res, []any{&k.TenantID, &k.UserID, &k.EventID, &k.Key, &k.Item, &k.Op}, func() error {
		stored[k] = true
		return nil
	}); err != nil {
		return nil, fmt.Errorf("record assertions: %w", err)
	}
	return stored, nil
}

// AssertionKey is an assertion's identity: its tenant, user, event, key,
// item and op (the table's primary key).
type AssertionKey struct{ TenantID, UserID, EventID, Key, Item, Op string }

// recordAssertions is RecordAssertions on db: the pool, or a transaction
// that stores them with what they were read beside (a summary's version).
// It returns how many rows were written (new, or given their embedding) and
// the keys of the new ones.
func recordAssertions(ctx context.Context, db interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, rows []AssertionRow) (int64, map[AssertionKey]bool, error) {
	if len(rows) == 0 {
		return 0, nil, nil
	}
	args, err := assertionArgs(rows)
	if err != nil {
		return 0, nil, err
	}
	res, err := db.Query(ctx, q(qAttributeAssertionInsertBatch), args...)
	if err != nil {
		return 0, nil, fmt.Errorf("record assertions: %w", err)
	}
	stored, err := storedKeys(res)
	if err != nil {
		return 0, nil, err
	}
	n := int64(len(stored))
	// The embeddings of statements stored before without one: a statement
	// apart, so that the insert locks nothing it did not write.
	var tenant, user, event, item, op, model []string
	var embedding []any
	for _, r := range rows {
		if r.Embedding != nil {
			tenant, user, event, item, op = append(tenant, r.TenantID), append(user, r.UserID), append(event, r.EventID), append(item, r.Item), append(op, r.Op)
			embedding, model = append(embedding, halfvecArg(r.Embedding)), append(model, r.Model)
		}
	}
	if len(embedding) == 0 {
		return n, stored, nil
	}
	tag, err := db.Exec(ctx, q(qAttributeStatementEmbed), tenant, user, event, item, op, embedding, model)
	if err != nil {
		return 0, nil, fmt.Errorf("record assertions: embeddings: %w", err)
	}
	return n + tag.RowsAffected(), stored, nil
}

// assertionArgs are qAttributeAssertionInsertBatch's arguments for rows,
// for a caller that runs it in a batch of its own.
func assertionArgs(rows []AssertionRow) ([]any, error) {
	n := len(rows)
	tenant, user, event, key, item, op, value, source, session := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	evidence := make([]json.RawMessage, n)
	confidence := make([]float64, n)
	at := make([]time.Time, n)
	embedding, model := make([]any, n), make([]*string, n)
	for i, r := range rows {
		if r.Embedding != nil {
			if r.Key != attribute.KeyStatements || r.Model == "" {
				return nil, fmt.Errorf("record assertions: an embedding is for a statement, with its model (%s %q)", r.Key, r.Item)
			}
			if err := checkVector(r.Embedding); err != nil {
				return nil, fmt.Errorf("record assertions: statement %q: embedding %w", r.Item, err)
			}
			embedding[i], model[i] = halfvecArg(r.Embedding), &rows[i].Model
		}
		tenant[i], user[i], event[i], key[i], item[i], op[i] = r.TenantID, r.UserID, r.EventID, r.Key, r.Item, r.Op
		value[i], source[i], session[i], confidence[i], at[i] = r.Value, r.Source, r.SessionID, r.Confidence, r.At
		ev := r.Evidence
		if ev == nil {
			ev = []string{}
		}
		b, err := json.Marshal(ev)
		if err != nil {
			return nil, fmt.Errorf("record assertions: %w", err)
		}
		evidence[i] = b
	}
	return []any{tenant, user, event, key, item, op, value, source, evidence, session, confidence, at, embedding, model}, nil
}

// Assertions are every assertion about a user, oldest first: what
// attribute.Resolve turns into the user's current attributes and their
// history.
func (t *Tenant) Assertions(ctx context.Context, userID string) ([]attribute.Assertion, error) {
	rows, err := t.s.pool.Query(ctx, q(qAttributeAssertionListByUser), t.id, userID)
	if err != nil {
		return nil, fmt.Errorf("list assertions: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanAssertion)
	if err != nil {
		return nil, fmt.Errorf("list assertions: %w", err)
	}
	return out, nil
}

// AssertionsOfKeys are the assertions of the given keys about each of the
// users, oldest first: AssertionsByUsers for a caller that resolves only
// those keys (the extractor, the names its users go by).
func (t *Tenant) AssertionsOfKeys(ctx context.Context, userIDs, keys []string) (map[string][]attribute.Assertion, error) {
	rows, err := t.s.pool.Query(ctx, q(qAttributeAssertionListByUsersKeys), t.id, userIDs, keys)
	if err != nil {
		return nil, fmt.Errorf("list assertions: %w", err)
	}
	return collectByUser(rows, len(userIDs))
}

// collectByUser reads rows of the assertion queries by user (user_id, then
// scanAssertion's columns) into a map by user.
func collectByUser(rows pgx.Rows, users int) (map[string][]attribute.Assertion, error) {
	out := make(map[string][]attribute.Assertion, users)
	var user string
	var a attribute.Assertion
	_, err := pgx.ForEachRow(rows, []any{&user, &a.EventID, &a.Key, &a.Item, &a.Op, &a.Value, &a.Source, &a.Evidence, &a.SessionID, &a.Confidence, &a.At}, func() error {
		a.At = a.At.UTC()
		out[user] = append(out[user], a)
		a.Evidence = nil
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list assertions: %w", err)
	}
	return out, nil
}

// scanAssertion reads a row of the assertion queries' column list.
func scanAssertion(r pgx.CollectableRow) (attribute.Assertion, error) {
	var a attribute.Assertion
	err := r.Scan(&a.EventID, &a.Key, &a.Item, &a.Op, &a.Value, &a.Source, &a.Evidence, &a.SessionID, &a.Confidence, &a.At)
	a.At = a.At.UTC()
	return a, err
}

// StatementKey is the key of a statement in ContextData.StatementSimilarity:
// the event it was read from and its item.
func StatementKey(eventID, item string) string { return eventID + "\x00" + item }
