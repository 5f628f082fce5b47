package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/attribute"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/store"
)

// Assertions are stored once whatever the redeliveries, read back whole,
// and leave with their user; a session's delete takes what was read from
// it alone.
func TestAssertions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.NewDB(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	schema := attribute.Default()
	row := func(tenant, user, event, key, value, source, session string, day int) store.AssertionRow {
		a := attribute.Assertion{Key: key, Value: value, Op: attribute.Put, Source: source, EventID: event, SessionID: session,
			Confidence: 0.9, At: t0.AddDate(0, 0, day)}
		if session != "" {
			a.Evidence = []string{event}
		}
		require.NoError(t, attribute.Normalize(schema, &a))
		return store.AssertionRow{TenantID: tenant, UserID: user, Assertion: a}
	}
	rows := []store.AssertionRow{
		row("acme", "u1", "t1", "location", "Paris", attribute.Stated, "s1", 0),
		row("acme", "u1", "t2", "location", "Berlin", attribute.Stated, "s2", 5),
		row("acme", "u1", "p1", "allergies", "Peanuts", attribute.Explicit, "", 1),
		row("acme", "u2", "t3", "name", "Ann", attribute.Stated, "s3", 0),
		row("other", "u1", "t1", "name", "Bob", attribute.Stated, "s1", 0),
	}
	n, err := db.Store.RecordAssertions(ctx, rows)
	require.NoError(t, err)
	require.EqualValues(t, 5, n)
	n, err = db.Store.RecordAssertions(ctx, rows[:3])
	require.NoError(t, err)
	require.Zero(t, n, "a redelivered assertion is stored once")

	acme := db.Store.Tenant("acme")
	// A few keys of many users at once: only those keys, only this
	// tenant's users, oldest first.
	byUser, err := acme.AssertionsOfKeys(ctx, []string{"u1", "u2", "u3"}, []string{"name", "location"})
	require.NoError(t, err)
	require.Len(t, byUser, 2)
	require.Equal(t, []attribute.Assertion{rows[0].Assertion, rows[1].Assertion}, byUser["u1"])
	require.Equal(t, []attribute.Assertion{rows[3].Assertion}, byUser["u2"])

	got, err := acme.Assertions(ctx, "u1")
	require.NoError(t, err)
	require.Len(t, got, 3)
	require.Equal(t, rows[0].Assertion, got[0], "read back as written")
	require.Equal(t, "p1", got[1].EventID, "oldest first")
	require.Equal(t, []string{}, got[1].Evidence)
	r := attribute.Resolve(schema, got)
	require.Len(t, r.Current, 2)
	require.Equal(t, "Berlin", r.Current[0].Value)
	require.Equal(t, "Peanuts", r.Current[1].Value)

	// The session of "Berlin" goes: Paris is current again, the explicit
	// value stays.
	insertSession(t, db, "acme", "u1", "s2", t0.AddDate(0, 0, 5))
	d, err := acme.DeleteSession(ctx, "s2")
	require.NoError(t, err)
	require.EqualValues(t, 1, d.Rows["attribute_assertions"])
	got, err = acme.Assertions(ctx, "u1")
	require.NoError(t, err)
	r = attribute.Resolve(schema, got)
	require.Equal(t, "Paris", r.Current[0].Value)
	require.Len(t, r.Current, 2)

	counts, err := acme.ForgetUser(ctx, "u1")
	require.NoError(t, err)
	require.EqualValues(t, 2, counts["attribute_assertions"])
	got, err = acme.Assertions(ctx, "u1")
	require.NoError(t, err)
	require.Empty(t, got)
	other, err := db.Store.Tenant("other").Assertions(ctx, "u1")
	require.NoError(t, err)
	require.Len(t, other, 1, "another tenant's user of the same id keeps theirs")
}

// insertSession stores one turn, so that the session exists.
func insertSession(t *testing.T, db *testenv.DB, tenant, user, session string, at time.Time) {
	t.Helper()
	_, err := db.Store.InsertTurns(context.Background(), []store.StoredTurn{{Turn: events.Turn{V: events.Version, ID: session + "-turn",
		TenantID: tenant, UserID: user, SessionID: session, OccurredAt: at, Role: events.RoleUser, Content: "hello"}}})
	require.NoError(t, err)
}

// A statement is stored with its embedding; one stored without takes the
// vector a replay brings, once; an embedding on another key is refused. A
// context whose search has a vector reads each statement's similarity to
// it by the same model, as of the context's moment.
func TestStatementVectors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.NewDB(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	said := func(event, text string, day int, vec []float32) store.AssertionRow {
		a := attribute.Assertion{Key: attribute.KeyStatements, Item: attribute.ItemKey(text), Value: text, Op: attribute.Put,
			Source: attribute.Stated, EventID: event, Evidence: []string{event}, SessionID: "s1", Confidence: 0.8, At: t0.AddDate(0, 0, day)}
		r := store.AssertionRow{TenantID: "acme", UserID: "u1", Assertion: a}
		if vec != nil {
			r.Embedding, r.Model = vec, "m"
		}
		return r
	}
	heights := said("t1", "I have an extreme aversion to heights.", 0, nil)
	jazz := said("t2", "I love old jazz records.", 2, []float32{0, 1, 0})
	// A turn that says the same matter twice: the first is stored, with
	// its vector, in one statement however many are alike.
	twice := jazz
	twice.Value, twice.Embedding = "I love old jazz records so much.", []float32{1, 0, 0}
	n, err := db.Store.RecordAssertions(ctx, []store.AssertionRow{heights, jazz, twice})
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	got, err := db.Store.Tenant("acme").Assertions(ctx, "u1")
	require.NoError(t, err)
	require.Equal(t, jazz.Value, got[1].Value, "the first of the batch")
	// A replay with an embedder gives the first its vector; one more
	// changes nothing.
	heights.Embedding, heights.Model = []float32{2, 0, 0}, "m"
	n, err = db.Store.RecordAssertions(ctx, []store.AssertionRow{heights, jazz})
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	other := heights
	other.Embedding = []float32{0, 0, 1}
	n, err = db.Store.RecordAssertions(ctx, []store.AssertionRow{other})
	require.NoError(t, err)
	require.Zero(t, n)
	name := store.AssertionRow{TenantID: "acme", UserID: "u1", Assertion: attribute.Assertion{Key: "name", Value: "Ann", Op: attribute.Put,
		Source: attribute.Stated, EventID: "t3", Confidence: 0.9, At: t0}, Embedding: []float32{1, 0, 0}, Model: "m"}
	_, err = db.Store.RecordAssertions(ctx, []store.AssertionRow{name})
	require.ErrorContains(t, err, "an embedding is for a statement")

	similarity := func(at time.Time, vec []float32, model string) map[string]float64 {
		t.Helper()
		sc, err := store.NewSearchScan("u1", []string{"x"}, vec, model)
		require.NoError(t, err)
		d, err := db.Store.Tenant("acme").Context(ctx, store.ContextRead{SessionID: "s1", UserID: "u1", Messages: 10, Statements: true, At: at, Search: sc})
		require.NoError(t, err)
		sc.Release()
		return d.StatementSimilarity
	}
	sims := similarity(time.Time{}, []float32{1, 1, 0}, "m")
	require.Len(t, sims, 2)
	require.InDelta(t, 0.7071, sims[store.StatementKey("t1", heights.Item)], 0.01)
	require.InDelta(t, 0.7071, sims[store.StatementKey("t2", jazz.Item)], 0.01)
	require.Len(t, similarity(t0.AddDate(0, 0, 1), []float32{1, 1, 0}, "m"), 1, "as of before the second")
	require.Empty(t, similarity(time.Time{}, []float32{1, 1, 0}, "another model"))
	require.Empty(t, similarity(time.Time{}, []float32{1, 1, 0, 0}, "m"), "another dimension is not compared")
	sc, err := store.NewSearchScan("u1", []string{"x"}, nil, "")
	require.NoError(t, err)
	d, err := db.Store.Tenant("acme").Context(ctx, store.ContextRead{SessionID: "s1", UserID: "u1", Messages: 10, Statements: true, Search: sc})
	require.NoError(t, err)
	sc.Release()
	require.Nil(t, d.StatementSimilarity, "no vector, nothing measured")
}

// A context reads every assertion of the attributes' keys, however old, and
// of the self-statements the newest ContextStatements, as it stood then.
func TestContextReadsTheNewestStatements(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.NewDB(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	rows := []store.AssertionRow{{TenantID: "acme", UserID: "u1", Assertion: attribute.Assertion{Key: "name", Value: "Ann", Op: attribute.Put,
		Source: attribute.Stated, EventID: "n0", Confidence: 0.9, At: t0}}}
	n := store.ContextStatements + 3
	for i := range n {
		text := fmt.Sprintf("I like thing number %d.", i)
		rows = append(rows, store.AssertionRow{TenantID: "acme", UserID: "u1", Assertion: attribute.Assertion{Key: attribute.KeyStatements,
			Item: attribute.ItemKey(text), Value: text, Op: attribute.Put, Source: attribute.Stated, EventID: fmt.Sprintf("s%d", i),
			Confidence: 0.6, At: t0.Add(time.Duration(i+1) * time.Minute)}, Embedding: []float32{1, 0}, Model: "m"})
	}
	_, err := db.Store.RecordAssertions(ctx, rows)
	require.NoError(t, err)
	read := func(at time.Time) (statements int, oldest string, names int, similar int) {
		t.Helper()
		sc, err := store.NewSearchScan("u1", []string{"x"}, []float32{1, 0}, "m")
		require.NoError(t, err)
		defer sc.Release()
		d, err := db.Store.Tenant("acme").Context(ctx, store.ContextRead{SessionID: "s1", UserID: "u1", Messages: 10, Statements: true, At: at, Search: sc})
		require.NoError(t, err)
		for _, a := range d.Assertions {
			switch a.Key {
			case attribute.KeyStatements:
				if statements == 0 {
					oldest = a.EventID
				}
				statements++
			case "name":
				names++
			}
		}
		return statements, oldest, names, len(d.StatementSimilarity)
	}
	statements, oldest, names, similar := read(time.Time{})
	require.Equal(t, store.ContextStatements, statements)
	require.Equal(t, "s3", oldest, "the newest, oldest first")
	require.Equal(t, 1, names, "every assertion of the other keys, however old")
	require.Equal(t, store.ContextStatements, similar)
	statements, oldest, names, similar = read(t0.Add(11 * time.Minute))
	require.Equal(t, 10, statements, "as it stood then")
	require.Equal(t, "s0", oldest)
	require.Equal(t, 1, names)
	require.Equal(t, 10, similar)
}

// A context passes the revision of the assertions it holds: while nothing
// was written about the user it reads none again (AttributesKept); a new
// assertion, and a forgotten user, move the revision, and the next read has
// them as they are. Another user's writes leave it alone.
func TestContextReadsAssertionsOnceTheyMoved(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testenv.NewDB(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	said := func(user, id, text string, at time.Time) store.AssertionRow {
		return store.AssertionRow{TenantID: "acme", UserID: user, Assertion: attribute.Assertion{Key: attribute.KeyStatements,
			Item: attribute.ItemKey(text), Value: text, Op: attribute.Put, Source: attribute.Stated, EventID: id, Confidence: 0.6, At: at}}
	}
	read := func(known int64) store.ContextData {
		t.Helper()
		d, err := db.Store.Tenant("acme").Context(ctx, store.ContextRead{SessionID: "s1", UserID: "u1", Messages: 10, Statements: true,
			KnownAttributes: known})
		require.NoError(t, err)
		return d
	}

	d := read(0)
	require.Zero(t, d.AttributesRevision, "a user who never had an assertion has no revision")
	require.Empty(t, d.Assertions)
	require.False(t, d.AttributesKept)

	_, err := db.Store.RecordAssertions(ctx, []store.AssertionRow{said("u1", "e1", "I like tea.", t0), said("u1", "e2", "I keep bees.", t0.Add(time.Minute))})
	require.NoError(t, err)
	d = read(0)
	first := d.AttributesRevision
	require.Positive(t, first)
	require.Len(t, d.Assertions, 2)
	require.False(t, d.AttributesKept, "nothing was held")

	d = read(first)
	require.True(t, d.AttributesKept)
	require.Empty(t, d.Assertions, "not read again")
	require.Equal(t, first, d.AttributesRevision)

	// The same assertions again (a redelivery) write nothing and move nothing.
	_, err = db.Store.RecordAssertions(ctx, []store.AssertionRow{said("u1", "e1", "I like tea.", t0)})
	require.NoError(t, err)
	require.True(t, read(first).AttributesKept)

	// Another user's assertion leaves this user's revision where it was.
	_, err = db.Store.RecordAssertions(ctx, []store.AssertionRow{said("u2", "e9", "I like coffee.", t0)})
	require.NoError(t, err)
	require.True(t, read(first).AttributesKept)

	_, err = db.Store.RecordAssertions(ctx, []store.AssertionRow{said("u1", "e3", "I moved to Oslo.", t0.Add(2*time.Minute))})
	require.NoError(t, err)
	d = read(first)
	require.False(t, d.AttributesKept)
	require.Greater(t, d.AttributesRevision, first)
	require.Len(t, d.Assertions, 3)
	second := d.AttributesRevision

	_, err = db.Store.Tenant("acme").ForgetUser(ctx, "u1")
	require.NoError(t, err)
	d = read(second)
	require.False(t, d.AttributesKept, "a forgotten user's assertions are not held on to")
	require.Zero(t, d.AttributesRevision, "forgotten with the rest of the user")
	require.Empty(t, d.Assertions)
	// Told again, the user's revision is a new one, never one held from before.
	_, err = db.Store.RecordAssertions(ctx, []store.AssertionRow{said("u1", "e1", "I like tea.", t0)})
	require.NoError(t, err)
	d = read(first)
	require.False(t, d.AttributesKept)
	require.Greater(t, d.AttributesRevision, second)
	require.Len(t, d.Assertions, 1)

	// A read as of a past moment reads them whatever is held, and has no revision.
	d2, err := db.Store.Tenant("acme").Context(ctx, store.ContextRead{SessionID: "s1", UserID: "u2", Messages: 10, Statements: true,
		At: t0.Add(time.Hour), KnownAttributes: 1})
	require.NoError(t, err)
	require.False(t, d2.AttributesKept)
	require.Zero(t, d2.AttributesRevision)
	require.Len(t, d2.Assertions, 1)
}
