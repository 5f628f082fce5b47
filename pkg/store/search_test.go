package store_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/recallhq/recall/internal/testkit/testenv"
	"github.com/recallhq/recall/pkg/embed"
	"github.com/recallhq/recall/pkg/events"
	"github.com/recallhq/recall/pkg/record"
	"github.com/recallhq/recall/pkg/search"
	"github.com/recallhq/recall/pkg/store"
)

// The store's search tests give entries their terms directly (the words of
// their text): the analyzer has tests of its own in package search. They
// check what the store keeps of the entries (writes, deletes, vectors, the
// scan) through searches ranked by package search, whose ranking has its
// own tests there.

type searchSetup struct {
	ctx context.Context
	db  *testenv.DB
	st  *store.Store
}

func setupSearch(t *testing.T) searchSetup {
	t.Helper()
	db := testenv.NewDB(t)
	return searchSetup{ctx: context.Background(), db: db, st: db.Store}
}

// msgEntry is a turn's entry whose terms are the words of its text.
func msgEntry(tenant, user, session, id, role string, at time.Time, text string) store.SearchEntry {
	return store.SearchEntry{TenantID: tenant, UserID: user, Kind: store.SearchMessage, SourceID: id,
		SessionID: session, Role: role, OccurredAt: at, Text: text, Terms: strings.Fields(text)}
}

func (s searchSetup) upsert(t *testing.T, entries ...store.SearchEntry) int64 {
	t.Helper()
	n, err := s.st.UpsertSearchEntries(s.ctx, entries)
	require.NoError(t, err)
	return n
}

func (s searchSetup) search(t *testing.T, tenant string, p search.Params) []search.Hit {
	t.Helper()
	if p.Now.IsZero() {
		p.Now = t0
	}
	hits, err := search.Find(s.ctx, s.st.Tenant(tenant), p)
	require.NoError(t, err)
	return hits
}

func sources(hits []search.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.SourceID
	}
	return out
}

// entryRow is what a stored entry holds, with its row version (xmin), which
// changes on any write.
type entryRow struct {
	Revision  int64
	Body      string
	Terms     string
	Model     *string
	Embedding *string
	XMin      uint32
}

func (s searchSetup) rows(t *testing.T, tenant string) map[string]entryRow {
	t.Helper()
	rows, err := s.st.Pool().Query(s.ctx, `
		SELECT user_id || '/' || kind || '/' || source_id, revision, body, terms::text, embedding_model,
		       embedding::text, xmin::text::bigint
		FROM search_entries WHERE tenant_id = $1`, tenant)
	require.NoError(t, err)
	out := map[string]entryRow{}
	var key string
	var r entryRow
	var xmin int64
	_, err = pgx.ForEachRow(rows, []any{&key, &r.Revision, &r.Body, &r.Terms, &r.Model, &r.Embedding, &xmin}, func() error {
		r.XMin = uint32(xmin)
		out[key] = r
		return nil
	})
	require.NoError(t, err)
	return out
}

func TestSearchUpsertIdempotent(t *testing.T) {
	t.Parallel()
	s := setupSearch(t)
	batch := []store.SearchEntry{
		msgEntry("acme", "u1", "s1", "e1", "user", t0, "dune is a novel by frank herbert"),
		msgEntry("acme", "u1", "s1", "e2", "assistant", t0.Add(time.Minute), "dune dune dune"),
		{TenantID: "acme", UserID: "u1", Kind: store.SearchSummary, SourceID: "s1", Revision: 1, SessionID: "s1",
			OccurredAt: t0, Text: "talked about dune", Terms: []string{"talk", "dune"}, Embedding: []float32{1, 0}, Model: "m1"},
	}
	require.EqualValues(t, 3, s.upsert(t, batch...))
	before := s.rows(t, "acme")
	require.Len(t, before, 3)

	require.Zero(t, s.upsert(t, batch...), "the same batch again writes nothing")
	require.Zero(t, s.upsert(t, batch[0], batch[0], batch[1]), "duplicates in one batch are one entry")
	noVector := batch[2]
	noVector.Embedding, noVector.Model = nil, ""
	require.Zero(t, s.upsert(t, noVector), "without a vector, the same text keeps the stored one")
	require.Equal(t, before, s.rows(t, "acme"))

	older := batch[2]
	older.Revision, older.Text, older.Terms = 0, "an older version", []string{"older"}
	require.Zero(t, s.upsert(t, older), "an older revision replaces nothing")
	newer := batch[2]
	newer.Revision, newer.Text, newer.Terms, newer.Embedding, newer.Model = 2, "talked about dune and arrakis", []string{"dune", "arrakis"}, nil, ""
	require.EqualValues(t, 1, s.upsert(t, newer, older))
	after := s.rows(t, "acme")["u1/summary/s1"]
	require.Equal(t, int64(2), after.Revision)
	require.Equal(t, "'arrakis':2 'dune':1", after.Terms)
	require.Nil(t, after.Embedding, "the vector of the old text is gone with it")
	require.Nil(t, after.Model)
}

func TestSearchEmbeddingModelChange(t *testing.T) {
	t.Parallel()
	s := setupSearch(t)
	e := msgEntry("acme", "u1", "s1", "e1", "user", t0, "dune")
	e.Embedding, e.Model = []float32{1, 0, 0}, "small"
	s.upsert(t, e)
	require.Zero(t, s.upsert(t, e))

	e.Embedding, e.Model = []float32{0, 1, 0, 0}, "large"
	require.EqualValues(t, 1, s.upsert(t, e), "a replay with another model replaces the vector")
	r := s.rows(t, "acme")["u1/message/e1"]
	require.Equal(t, "large", *r.Model)
	require.Equal(t, "[0,1,0,0]", *r.Embedding)

	// Only vectors of the query's model are compared: the old model finds
	// nothing by vector, the new one does.
	hits := s.search(t, "acme", search.Params{UserID: "u1", Vector: []float32{1, 0, 0}, Model: "small"})
	require.Empty(t, hits)
	hits = s.search(t, "acme", search.Params{UserID: "u1", Vector: []float32{0, 1, 0, 0}, Model: "large"})
	require.Len(t, hits, 1)
	require.Equal(t, 1, hits[0].VectorRank)
	require.InDelta(t, 1.0, hits[0].Similarity, 1e-6)
	require.Zero(t, hits[0].LexicalRank)
}

// TestSearchEmbeddingsAtHalfPrecision: embeddings are stored as halfvec at
// unit length, so a vector whose components are far beyond half precision's
// range (65504) is stored, and similarities are the exact ones to within
// half precision; a vector with a component that is not a number is refused
// with an error that names it, for an entry and for a query.
func TestSearchEmbeddingsAtHalfPrecision(t *testing.T) {
	t.Parallel()
	s := setupSearch(t)
	big := []float32{3e6, -4e6, 1e5, 0}
	small := []float32{0.001, 0.002, -0.0005, 0.0001}
	a := msgEntry("acme", "u1", "s1", "e1", "user", t0, "alpha")
	a.Embedding, a.Model = big, "m"
	b := msgEntry("acme", "u1", "s1", "e2", "assistant", t0.Add(time.Minute), "beta")
	b.Embedding, b.Model = small, "m"
	require.EqualValues(t, 2, s.upsert(t, a, b))
	require.Zero(t, s.upsert(t, a, b), "stored again: nothing changes")

	var norm float64
	require.NoError(t, s.st.Pool().QueryRow(s.ctx,
		`SELECT l2_norm(embedding) FROM search_entries WHERE source_id = 'e1'`).Scan(&norm))
	require.InDelta(t, 1, norm, 1e-3, "stored at unit length")

	query := []float32{2e5, -1e5, 7e4, 3e4}
	hits := s.search(t, "acme", search.Params{UserID: "u1", Vector: query, Model: "m"})
	require.Len(t, hits, 2)
	for _, h := range hits {
		want := embed.Cosine(query, big)
		if h.SourceID == "e2" {
			want = embed.Cosine(query, small)
		}
		require.InDelta(t, want, h.Similarity, 2e-3, h.SourceID)
	}
	require.Equal(t, "e1", hits[0].SourceID, "the nearer vector first")

	nan := msgEntry("acme", "u1", "s1", "e3", "user", t0, "gamma")
	nan.Embedding, nan.Model = []float32{1, float32(math.NaN()), 0, 0}, "m"
	_, err := s.st.UpsertSearchEntries(s.ctx, []store.SearchEntry{nan})
	require.ErrorContains(t, err, `search entry message "e3": embedding component 1 is NaN`)
	_, err = search.Find(s.ctx, s.st.Tenant("acme"), search.Params{UserID: "u1", Vector: []float32{float32(math.Inf(1)), 0, 0, 0}, Model: "m"})
	require.ErrorContains(t, err, "query vector component 0 is +Inf")
	_, err = search.Find(s.ctx, s.st.Tenant("acme"), search.Params{UserID: "u1", Vector: []float32{}, Model: "m"})
	require.ErrorContains(t, err, "query vector of 0 dimensions")
}

// TestSearchHalfvecMigration: on an existing database, stored vectors of any
// length become unit halfvecs, entries without one keep none, and searches
// find them as before.
func TestSearchHalfvecMigration(t *testing.T) {
	t.Parallel()
	s := setupSearch(t)
	conn, err := pgx.Connect(s.ctx, s.db.URL)
	require.NoError(t, err)
	defer conn.Close(s.ctx)
	log := testenv.Logger(t)
	version := migrationVersion(t, "search_halfvec")
	_, err = store.MigrateDown(s.ctx, conn, version-1, log)
	require.NoError(t, err)
	for _, r := range []struct {
		id, vec string
	}{{"e1", "[300000,400000,0]"}, {"e2", "[0,0,0.5]"}, {"e3", ""}} {
		var vec, model *string
		if r.vec != "" {
			vec, model = &r.vec, new(string)
			*model = "m"
		}
		_, err := conn.Exec(s.ctx, `INSERT INTO search_entries (tenant_id, user_id, kind, source_id, occurred_at, body, terms, term_count, embedding, embedding_model)
			VALUES ('acme', 'u1', 'message', $1, $2, 'dune', 'dune', 1, $3::vector, $4)`, r.id, t0, vec, model)
		require.NoError(t, err)
	}

	_, err = store.Migrate(s.ctx, conn, 0, log)
	require.NoError(t, err)
	var typ string
	require.NoError(t, conn.QueryRow(s.ctx, `SELECT format_type(atttypid, atttypmod) FROM pg_attribute
		WHERE attrelid = 'search_entries'::regclass AND attname = 'embedding'`).Scan(&typ))
	require.Equal(t, "halfvec", typ)
	rows := s.rows(t, "acme")
	require.Equal(t, "[0.60009766,0.7998047,0]", *rows["u1/message/e1"].Embedding, "0.6 and 0.8 at half precision")
	require.Equal(t, "[0,0,1]", *rows["u1/message/e2"].Embedding)
	require.Nil(t, rows["u1/message/e3"].Embedding)

	hits := s.search(t, "acme", search.Params{UserID: "u1", Vector: []float32{3, 4, 0}, Model: "m", Terms: []string{"dune"}})
	require.Len(t, hits, 3)
	byID := map[string]search.Hit{}
	for _, h := range hits {
		byID[h.SourceID] = h
	}
	require.InDelta(t, 1, byID["e1"].Similarity, 1e-3)
	require.Equal(t, 1, byID["e1"].VectorRank)
	require.Zero(t, byID["e3"].VectorRank, "no vector, found by its terms")

	_, err = store.MigrateDown(s.ctx, conn, version-1, log)
	require.NoError(t, err, "and back")
	_, err = store.Migrate(s.ctx, conn, 0, log)
	require.NoError(t, err)
}

func TestSearchTSVectorKeepsTerms(t *testing.T) {
	t.Parallel()
	s := setupSearch(t)
	terms := []string{"b-1234", "x.com/book/823d", "o'neil", `back\slash`, "三体", "b-1234", "run"}
	var got []string
	var positions string
	var binary []byte
	require.NoError(t, s.st.Pool().QueryRow(s.ctx, `
		SELECT tsvector_to_array($1::tsvector), $1::tsvector::text, tsvectorsend($1::tsvector)`, store.TSVector(terms)).Scan(&got, &positions, &binary))
	require.ElementsMatch(t, []string{"b-1234", "x.com/book/823d", "o'neil", `back\slash`, "三体", "run"}, got,
		"terms are stored as they are, not parsed again")
	require.Contains(t, positions, "'b-1234':1,6")
	// The search reads each query term's frequency from the binary form.
	index := map[string]int{"b-1234": 0, "o'neil": 1, `back\slash`: 2, "三体": 3, "absent": 4}
	tf := make([]int32, len(index))
	found, err := store.TSVectorFrequencies(binary, index, tf)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, []int32{2, 1, 1, 1, 0}, tf)
	// The same read from the terms a row kept (SearchScan.KeepTerms).
	kept := make([]int32, len(index))
	found, err = store.TSVectorFrequenciesKept(string(binary), index, kept)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, tf, kept)
	found, err = store.TSVectorFrequenciesKept(string(binary), map[string]int{"absent": 0}, kept[:1])
	require.NoError(t, err)
	require.False(t, found, "none of the terms")
	// A lexeme stored without positions occurs once; a truncated value is an
	// error, not a wrong count.
	require.NoError(t, s.st.Pool().QueryRow(s.ctx, `SELECT tsvectorsend('a b:2,3'::tsvector)`).Scan(&binary))
	tf = make([]int32, 2)
	_, err = store.TSVectorFrequencies(binary, map[string]int{"a": 0, "b": 1}, tf)
	require.NoError(t, err)
	require.Equal(t, []int32{1, 2}, tf)
	for _, cut := range [][]byte{binary[:len(binary)-1], binary[:2]} {
		_, err = store.TSVectorFrequencies(cut, map[string]int{"a": 0}, tf)
		require.Error(t, err)
		_, err = store.TSVectorFrequenciesKept(string(cut), map[string]int{"a": 0}, tf)
		require.Error(t, err)
	}
	var match bool
	require.NoError(t, s.st.Pool().QueryRow(s.ctx, `SELECT $1::tsvector @@ $2::tsquery`,
		store.TSVector(terms), store.TSQuery([]string{"nothing", "o'neil"})).Scan(&match))
	require.True(t, match)
}

func TestSearchTenantAndUserIsolation(t *testing.T) {
	t.Parallel()
	s := setupSearch(t)
	s.upsert(t,
		msgEntry("acme", "u1", "s1", "e1", "user", t0, "dune arrakis"),
		msgEntry("acme", "u2", "s2", "e2", "user", t0, "dune arrakis"),
		// the same user id in another tenant is someone else, and may reuse
		// event and session ids
		msgEntry("beta", "u1", "s1", "e1", "user", t0, "dune arrakis spice"),
	)
	vec := store.SearchEntry{TenantID: "beta", UserID: "u1", Kind: store.SearchMessage, SourceID: "v1", SessionID: "s1",
		OccurredAt: t0, Text: "vector only", Embedding: []float32{1, 0}, Model: "m"}
	s.upsert(t, vec)

	hits := s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"dune", "spice"},
		Vector: []float32{1, 0}, Model: "m"})
	require.Equal(t, []string{"e1"}, sources(hits))
	require.Equal(t, "dune arrakis", hits[0].Text, "acme's entry, not beta's")
	hits = s.search(t, "beta", search.Params{UserID: "u1", Terms: []string{"dune"}, Vector: []float32{1, 0}, Model: "m"})
	require.ElementsMatch(t, []string{"e1", "v1"}, sources(hits))
	require.Empty(t, s.search(t, "beta", search.Params{UserID: "u2", Terms: []string{"dune"}}))
}

// sessionWithEntries stores a session's turns and their entries, and a
// summary version with its entry, and a fact first mentioned in it.
func (s searchSetup) sessionWithEntries(t *testing.T, tenant, user, session string, at time.Time, n int) {
	t.Helper()
	var turns []store.StoredTurn
	var entries []store.SearchEntry
	for i := range n {
		id := fmt.Sprintf("%s-%d", session, i)
		when := at.Add(time.Duration(i) * time.Minute)
		turns = append(turns, store.StoredTurn{Turn: events.Turn{ID: id, TenantID: tenant, UserID: user, SessionID: session,
			OccurredAt: when, Role: events.RoleUser, Content: "dune " + id}})
		entries = append(entries, msgEntry(tenant, user, session, id, "user", when, "dune "+id))
	}
	_, err := s.st.InsertTurns(s.ctx, turns)
	require.NoError(t, err)
	s.upsert(t, entries...)
	sum := record.Summary{SessionID: session, UserID: user, Version: 1, FromCount: 0, ThroughCount: int64(n),
		FirstEventID: turns[0].Turn.ID, FirstAt: turns[0].Turn.OccurredAt, LastEventID: turns[n-1].Turn.ID,
		LastAt: turns[n-1].Turn.OccurredAt, CoversFrom: turns[0].Turn.OccurredAt, CoversTo: turns[n-1].Turn.OccurredAt,
		MessagesRead: n, Text: "dune summary", Model: "extractive", Reason: "request"}
	read := make([]string, n)
	for i := range turns {
		read[i] = turns[i].Turn.ID
	}
	_, err = s.st.WriteSummary(s.ctx, store.SummaryWrite{TenantID: tenant, Summary: sum, Read: read, Search: &store.SearchEntry{
		TenantID: tenant, UserID: user, Kind: store.SearchSummary, SourceID: session, Revision: 1, SessionID: session,
		OccurredAt: sum.LastAt, Text: sum.Text, Terms: []string{"dune", "summari"}}})
	require.NoError(t, err)
	m := store.Mention{TenantID: tenant, EventID: turns[0].Turn.ID, UserID: user, SessionID: session, Type: "book_title",
		Value: "dune " + session, Display: "Dune " + session, OccurredAt: at, ExpiresAt: at.AddDate(0, 3, 0), Source: "rules"}
	_, err = s.st.RecordMentions(s.ctx, []store.Mention{m})
	require.NoError(t, err)
	s.upsert(t, store.SearchEntry{TenantID: tenant, UserID: user, Kind: store.SearchFact, SourceID: store.FactSourceID(m.Type, m.Value),
		Revision: at.UnixMicro(), SessionID: session, OccurredAt: at, Text: m.Display, Terms: []string{"dune"}})
}

func (s searchSetup) kinds(t *testing.T, tenant, user string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for key := range s.rows(t, tenant) {
		parts := strings.SplitN(key, "/", 3)
		if parts[0] == user {
			out[parts[1]]++
		}
	}
	return out
}

func TestSearchDeleteSession(t *testing.T) {
	t.Parallel()
	s := setupSearch(t)
	s.sessionWithEntries(t, "acme", "u1", "s1", t0, 3)
	s.sessionWithEntries(t, "acme", "u1", "s2", t0, 2)
	require.Equal(t, map[string]int{"message": 5, "summary": 2, "fact": 2}, s.kinds(t, "acme", "u1"))

	_, err := s.st.Tenant("acme").DeleteSession(s.ctx, "s1")
	require.NoError(t, err)
	require.Equal(t, map[string]int{"message": 2, "summary": 1, "fact": 1}, s.kinds(t, "acme", "u1"),
		"the session's turns and summary go, and its fact, mentioned there only; the other session's fact stays")
	for _, h := range s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"dune"}, MaxPerSession: -1, K: 20}) {
		require.True(t, h.Kind == store.SearchFact || h.SessionID == "s2", h.SourceID)
	}
}

func TestSearchRetention(t *testing.T) {
	t.Parallel()
	s := setupSearch(t)
	// s1 is entirely old, s2 has old and new turns.
	s.sessionWithEntries(t, "acme", "u1", "s1", t0.AddDate(0, -3, 0), 3)
	s.sessionWithEntries(t, "acme", "u1", "s2", t0.AddDate(0, -1, 0).Add(-2*time.Minute), 4)
	cutoff := t0.AddDate(0, -1, 0)
	var total store.RetentionBatch
	for after := ""; ; {
		b, err := s.st.Tenant("acme").DeleteOldMessages(s.ctx, after, cutoff, 10, 100)
		require.NoError(t, err)
		total.Messages += b.Messages
		total.Sessions += b.Sessions
		if b.Done {
			break
		}
		after = b.Next
	}
	require.EqualValues(t, 5, total.Messages)
	require.EqualValues(t, 1, total.Sessions)
	require.Equal(t, map[string]int{"message": 2, "summary": 1, "fact": 2}, s.kinds(t, "acme", "u1"),
		"entries of deleted turns go, and the summary of the deleted session")
	hits := s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"dune"}, Kinds: []string{store.SearchMessage}, MaxPerSession: -1})
	require.ElementsMatch(t, []string{"s2-2", "s2-3"}, sources(hits))
	// The deleted turns had been summarized: they leave the summarized count
	// with the message count, so nothing looks unsummarized, and the next
	// new turns count from zero towards the threshold.
	var count, summarized, requested int64
	require.NoError(t, s.st.Pool().QueryRow(s.ctx, `SELECT message_count - system_count, summarized_count, summary_requested_count
		FROM sessions WHERE tenant_id = 'acme' AND session_id = 's2'`).Scan(&count, &summarized, &requested))
	require.Equal(t, []int64{2, 2}, []int64{count, summarized})
	require.LessOrEqual(t, requested, summarized)
}

func TestSearchFactsWhileActive(t *testing.T) {
	t.Parallel()
	s := setupSearch(t)
	s.sessionWithEntries(t, "acme", "u1", "s1", t0, 1)
	facts := func() []string {
		return sources(s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"dune"}, Kinds: []string{store.SearchFact}}))
	}
	id := store.FactSourceID("book_title", "dune s1")
	require.Equal(t, []string{id}, facts())
	// The search query splits the id back into the fact's type and value
	// (search.sql); split it the same way.
	var ok bool
	var typ, value string
	require.NoError(t, s.st.Pool().QueryRow(s.ctx, `SELECT strpos($1, E'\x1f') > 0, split_part($1, E'\x1f', 1),
		substr($1, strpos($1, E'\x1f') + 1)`, id).Scan(&ok, &typ, &value))
	require.True(t, ok)
	require.Equal(t, "book_title", typ)
	require.Equal(t, "dune s1", value)

	_, err := s.st.Pool().Exec(s.ctx, `UPDATE facts SET status = 'archived'`)
	require.NoError(t, err)
	require.Empty(t, facts(), "an archived fact is not found")
	_, err = s.st.Pool().Exec(s.ctx, `UPDATE facts SET status = 'expired', expires_at = $1`, t0)
	require.NoError(t, err)
	n, _, err := s.st.PurgeExpiredFacts(s.ctx, 0, 1<<20, t0.Add(time.Hour))
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.Zero(t, s.kinds(t, "acme", "u1")["fact"], "a purged fact's entry goes with it")
}

func TestSearchSummaryVersions(t *testing.T) {
	t.Parallel()
	s := setupSearch(t)
	s.sessionWithEntries(t, "acme", "u1", "s1", t0, 2)
	st, err := s.st.Tenant("acme").SummaryState(s.ctx, "s1")
	require.NoError(t, err)
	sum, err := s.st.Tenant("acme").CurrentSummary(s.ctx, "s1")
	require.NoError(t, err)
	_, err = s.st.InsertTurns(s.ctx, []store.StoredTurn{{Turn: events.Turn{ID: "s1-new", TenantID: "acme", UserID: "u1", SessionID: "s1",
		OccurredAt: t0.Add(time.Hour), Role: events.RoleUser, Content: "arrakis"}}})
	require.NoError(t, err)
	next := sum
	next.Version, next.FromCount, next.ThroughCount = 2, st.Summarized, st.Summarized+1
	next.FirstEventID, next.LastEventID, next.FirstAt, next.LastAt, next.Text = "s1-new", "s1-new", t0.Add(time.Hour), t0.Add(time.Hour), "arrakis summary"
	next.CoversTo, next.MessagesRead = t0.Add(time.Hour), 1
	_, err = s.st.WriteSummary(s.ctx, store.SummaryWrite{TenantID: "acme", Summary: next, Read: []string{"s1-new"}, Search: &store.SearchEntry{
		TenantID: "acme", UserID: "u1", Kind: store.SearchSummary, SourceID: "s1", Revision: 2, SessionID: "s1",
		OccurredAt: next.LastAt, Text: next.Text, Terms: []string{"arraki", "summari"}}})
	require.NoError(t, err)

	hits := s.search(t, "acme", search.Params{UserID: "u1", Terms: []string{"summari"}, Kinds: []string{store.SearchSummary}})
	require.Len(t, hits, 1, "one entry per session: the current version")
	require.Equal(t, "arrakis summary", hits[0].Text)
	require.Equal(t, t0.Add(time.Hour), hits[0].OccurredAt)
}

func TestSearchForgetUser(t *testing.T) {
	t.Parallel()
	s := setupSearch(t)
	s.sessionWithEntries(t, "acme", "u1", "s1", t0, 2)
	s.sessionWithEntries(t, "acme", "u2", "s2", t0, 2)
	counts, err := s.st.Tenant("acme").ForgetUser(s.ctx, "u1")
	require.NoError(t, err)
	require.EqualValues(t, 4, counts["search_entries"])
	require.Empty(t, s.kinds(t, "acme", "u1"))
	require.Equal(t, map[string]int{"message": 2, "summary": 1, "fact": 1}, s.kinds(t, "acme", "u2"))
}

// A context asked with a search reads both in one batch. When the search's
// statement fails (here PostgreSQL refuses a NaN in the query vector; a
// cancelled request fails the same way), the context fails with the reason,
// and the connection goes back to the pool in working order.
func TestContextWithSearch(t *testing.T) {
	t.Parallel()
	s := setupSearch(t)
	s.upsert(t, msgEntry("acme", "u1", "s1", "e1", "user", t0, "dune arrakis"))
	tn := s.st.Tenant("acme")
	// withSearch reads the context with p's scan in its batch, and the hits
	// ranked from it, as the API does.
	withSearch := func(ctx context.Context, p search.Params) (store.ContextData, []search.Hit, error) {
		pl, err := search.PlanParams(p)
		if err != nil {
			return store.ContextData{}, nil, err
		}
		defer pl.Release()
		d, err := tn.Context(ctx, store.ContextRead{SessionID: "new", UserID: "u1", Messages: 10, Facts: 10, Summaries: 3, Search: pl.Scan()})
		if err != nil {
			return d, nil, err
		}
		hits, err := pl.Rank(pl.During())
		return d, hits, err
	}
	d, hits, err := withSearch(s.ctx, search.Params{UserID: "u1", Terms: []string{"dune"}})
	require.NoError(t, err)
	require.False(t, d.Found, "no such session: no window, the search still runs")
	require.Equal(t, []string{"e1"}, sources(hits))

	_, _, err = withSearch(s.ctx, search.Params{UserID: "u1", Terms: []string{"dune"},
		Vector: []float32{float32(math.NaN()), 1}, Model: "m"})
	require.ErrorContains(t, err, "NaN")
	_, _, err = withSearch(s.ctx, search.Params{UserID: ""})
	require.ErrorContains(t, err, "user is required", "a bad search is refused before anything is sent")

	ctx, cancel := context.WithCancel(s.ctx)
	cancel()
	_, _, err = withSearch(ctx, search.Params{UserID: "u1", Terms: []string{"dune"}})
	require.ErrorIs(t, err, context.Canceled)

	for range 2 * 8 { // more than the pool holds: none was left behind
		_, hits, err = withSearch(s.ctx, search.Params{UserID: "u1", Terms: []string{"dune"}})
		require.NoError(t, err)
		require.Len(t, hits, 1)
	}
}

// An entry's tsvector text: each distinct term once, in the order it first
// occurs, with its positions in order; empty terms hold their positions but
// are not written; positions past PostgreSQL's last are its last, once.
// Texts made at once from many goroutines do not mix (the scratch they are
// made in is pooled).
func TestTSVectorText(t *testing.T) {
	t.Parallel()
	require.Equal(t, "", store.TSVector(nil))
	require.Equal(t, "", store.TSVector([]string{"", ""}))
	require.Equal(t, `'run':1,4 'o''neil':3,7 'b':5`, store.TSVector([]string{"run", "", "o'neil", "run", "b", "", "o'neil"}))
	long := make([]string, 16390)
	for i := range long {
		long[i] = "x"
	}
	long[1] = "y"
	text := store.TSVector(long)
	require.True(t, strings.HasPrefix(text, "'x':1,3,4,"), text[:20])
	require.True(t, strings.HasSuffix(text, ",16382,16383 'y':2"), text[len(text)-30:])
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				a, b := fmt.Sprintf("a%d", g), fmt.Sprintf("b%d", i%7)
				if got, want := store.TSVector([]string{a, b, a}), fmt.Sprintf("'%s':1,3 '%s':2", a, b); got != want {
					t.Errorf("got %s, want %s", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// A scan told to keep its rows' terms scores them again for other terms as
// a scan for those terms reads them; one that kept none refuses to.
func TestSearchScanKeepTerms(t *testing.T) {
	t.Parallel()
	s := setupSearch(t)
	s.upsert(t,
		msgEntry("t", "u1", "s1", "e1", "user", t0, "alpha beta alpha"),
		msgEntry("t", "u1", "s1", "e2", "user", t0.Add(time.Minute), "gamma delta"),
		msgEntry("t", "u1", "s2", "e3", "user", t0.Add(2*time.Minute), "epsilon"),
	)
	scan := func(terms []string, keep bool) *store.SearchScan {
		t.Helper()
		sc, err := store.NewSearchScan("u1", terms, nil, "")
		require.NoError(t, err)
		if keep {
			sc.KeepTerms()
		}
		require.NoError(t, s.st.Tenant("t").ScanSearch(s.ctx, sc))
		t.Cleanup(sc.Release)
		return sc
	}
	bySource := func(sc *store.SearchScan) map[string]store.SearchRow {
		out := map[string]store.SearchRow{}
		for _, r := range sc.Rows() {
			out[r.SourceID] = r
		}
		return out
	}

	plain := scan([]string{"alpha"}, false)
	require.Error(t, plain.Rescore([]string{"gamma"}), "no terms kept")
	rows := bySource(plain)
	require.Equal(t, []int32{2}, rows["e1"].TF)
	require.Nil(t, rows["e2"].TF)
	require.Empty(t, rows["e2"].Terms, "terms are kept only when asked for")

	kept := scan([]string{"alpha"}, true)
	rows = bySource(kept)
	require.Equal(t, []int32{2}, rows["e1"].TF, "the same frequencies")
	require.Nil(t, rows["e2"].TF, "nil when it holds no query term, though its terms were read")
	require.NotEmpty(t, rows["e2"].Terms)
	require.Equal(t, "gamma delta", rows["e2"].Text, "the texts around the kept terms are whole")

	more := []string{"gamma", "alpha", "zeta"}
	require.NoError(t, kept.Rescore(more))
	require.Equal(t, 3, kept.NumTerms())
	fresh := bySource(scan(more, false))
	for id, r := range bySource(kept) {
		require.Equal(t, fresh[id].TF, r.TF, id)
	}
	require.Equal(t, []int32{0, 2, 0}, bySource(kept)["e1"].TF)
	require.Equal(t, []int32{1, 0, 0}, bySource(kept)["e2"].TF)
	require.Nil(t, bySource(kept)["e3"].TF)
}

// A user's counts (search_user_stats, which choose the large users' search
// and give it BM25's statistics) follow every write of the user's entries:
// inserts, a replay, a new version of an entry, deletes by source and by
// session, and forgetting the user.
func TestSearchUserStatsFollowWrites(t *testing.T) {
	t.Parallel()
	db := testenv.NewDB(t)
	ctx := context.Background()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	entry := func(user, session, id string, terms ...string) store.SearchEntry {
		return store.SearchEntry{TenantID: "t", UserID: user, Kind: store.SearchMessage, SourceID: id, SessionID: session,
			Role: "user", OccurredAt: at, Text: id, Terms: terms}
	}
	check := func(what string) {
		t.Helper()
		rows, err := db.Store.Pool().Query(ctx, `
			SELECT u.user_id, coalesce(s.entries, 0), coalesce(s.terms, 0), count(e.*), coalesce(sum(e.term_count), 0)
			FROM (VALUES ('u1'), ('u2')) u(user_id)
			LEFT JOIN search_user_stats s ON s.tenant_id = 't' AND s.user_id = u.user_id
			LEFT JOIN search_entries e ON e.tenant_id = 't' AND e.user_id = u.user_id
			GROUP BY u.user_id, s.entries, s.terms`)
		require.NoError(t, err)
		for rows.Next() {
			var user string
			var entries, terms, want, wantTerms int64
			require.NoError(t, rows.Scan(&user, &entries, &terms, &want, &wantTerms))
			require.Equal(t, []int64{want, wantTerms}, []int64{entries, terms}, "%s: %s", what, user)
		}
		require.NoError(t, rows.Err())
	}
	batch := []store.SearchEntry{entry("u1", "s1", "a", "x", "y"), entry("u1", "s1", "b", "x"), entry("u2", "s2", "c", "z", "z", "z")}
	_, err := db.Store.UpsertSearchEntries(ctx, batch)
	require.NoError(t, err)
	check("inserted")
	_, err = db.Store.UpsertSearchEntries(ctx, batch)
	require.NoError(t, err)
	check("replayed")
	_, err = db.Store.UpsertSearchEntries(ctx, []store.SearchEntry{entry("u1", "s1", "a", "x", "y", "w", "v"), entry("u1", "s3", "d", "q")})
	require.NoError(t, err)
	check("a new version and a new entry")
	_, err = db.Store.Tenant("t").DeleteSearchEntries(ctx, "u1", store.SearchMessage, []string{"b"})
	require.NoError(t, err)
	check("deleted by source")
	_, err = db.Store.Pool().Exec(ctx, store.Query(store.QSearchDeleteBySession), "t", "s3")
	require.NoError(t, err)
	check("a session's entries deleted")
	_, err = db.Store.Tenant("t").ForgetUser(ctx, "u2")
	require.NoError(t, err)
	check("user forgotten")
	var n int
	require.NoError(t, db.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM search_user_stats WHERE user_id = 'u2'`).Scan(&n))
	require.Zero(t, n, "a forgotten user leaves no counts")
}
