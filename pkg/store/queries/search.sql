-- name: SearchEntryUpsertBatch
-- Stores a batch of search entries in one statement. A repeat of an entry
-- (same tenant, user, kind and source) changes nothing: the row is written
-- only when the incoming revision is newer, or it is the same revision and
-- something differs: its text, terms, attributes, or its embedding model
-- (a replay after a change of embedding model). An entry without an
-- embedding keeps the stored one when its text is unchanged (a vector
-- belongs to its text); with changed text the old vector goes. Within the
-- batch the newest revision of a key wins, and rows are written in key order
-- so that concurrent batches lock them in the same order. Returns the rows
-- written.
WITH rows AS (
    SELECT DISTINCT ON (tenant_id, user_id, kind, source_id) *
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[],
                $7::text[], $8::text[], $9::timestamptz[], $10::text[], $11::text[],
                $12::int[], $13::halfvec[], $14::text[])
      AS r(tenant_id, user_id, kind, source_id, revision, session_id,
           agent_id, role, occurred_at, body, terms,
           term_count, embedding, embedding_model)
    ORDER BY tenant_id, user_id, kind, source_id, revision DESC, (embedding IS NOT NULL) DESC
)
INSERT INTO search_entries AS e (tenant_id, user_id, kind, source_id, revision, session_id,
                                 agent_id, role, occurred_at, body, terms, term_count,
                                 embedding, embedding_model)
SELECT tenant_id, user_id, kind, source_id, revision, session_id,
       agent_id, role, occurred_at, body, terms::tsvector, term_count,
       embedding, embedding_model
FROM rows
ORDER BY tenant_id, user_id, kind, source_id
ON CONFLICT (tenant_id, user_id, kind, source_id) DO UPDATE
SET revision        = EXCLUDED.revision,
    session_id      = EXCLUDED.session_id,
    agent_id        = EXCLUDED.agent_id,
    role            = EXCLUDED.role,
    occurred_at     = EXCLUDED.occurred_at,
    body            = EXCLUDED.body,
    terms           = EXCLUDED.terms,
    term_count      = EXCLUDED.term_count,
    embedding       = CASE WHEN EXCLUDED.embedding IS NULL AND EXCLUDED.body = e.body
                           THEN e.embedding ELSE EXCLUDED.embedding END,
    embedding_model = CASE WHEN EXCLUDED.embedding IS NULL AND EXCLUDED.body = e.body
                           THEN e.embedding_model ELSE EXCLUDED.embedding_model END,
    indexed_at      = now()
WHERE EXCLUDED.revision > e.revision
   OR (EXCLUDED.revision = e.revision
       AND (EXCLUDED.body <> e.body
            OR EXCLUDED.terms <> e.terms
            OR EXCLUDED.term_count <> e.term_count
            OR EXCLUDED.session_id <> e.session_id
            OR EXCLUDED.agent_id <> e.agent_id
            OR EXCLUDED.role <> e.role
            OR EXCLUDED.occurred_at <> e.occurred_at
            OR (EXCLUDED.embedding IS NOT NULL
                AND e.embedding_model IS DISTINCT FROM EXCLUDED.embedding_model)));

-- name: SearchEntryDelete
-- Deletes a user's entries of one kind by source.
DELETE FROM search_entries
WHERE tenant_id = $1 AND user_id = $2 AND kind = $3 AND source_id = ANY ($4::text[]);

-- name: SearchDeleteBySession
-- A session's turns and summary. A fact's entry goes with the fact, when no
-- other session mentions it (SessionFactsForget).
DELETE FROM search_entries
WHERE tenant_id = $1 AND session_id = $2 AND kind IN ('message', 'summary');

-- name: UserDeleteSearchEntries
DELETE FROM search_entries WHERE tenant_id = $1 AND user_id = $2;

-- name: UserDeleteSearchStats
-- After UserDeleteSearchEntries, whose trigger left the user's counts at zero.
DELETE FROM search_user_stats WHERE tenant_id = $1 AND user_id = $2;

-- name: SearchScan
-- One user's entries, one row each, as the search ranks them (in Go, package
-- search: search.Find; read by SearchScan): $1 tenant, $2 user; $3 the query as a tsquery ('a' | 'b',
-- NULL for none), $4 the query vector (NULL: none) and $5 its model; $6 true
-- for every entry's terms (SearchScan.KeepTerms: a search its first hits
-- extend scores the same rows again for more terms). Each row has its terms
-- when it holds a query term, or with $6 (tsvectorsend's binary form; NULL
-- otherwise), its cosine distance to the query vector when it is embedded by
-- the query's model, and, for a fact, whether the fact is active; with its
-- text, and the attributes the filters and the hits read (the filters are
-- applied in Go: as expressions here they cost a sixth of the scan). The
-- user's range of the primary key is the only index read: one heap row per
-- entry, no sort, no join, nothing planned per query. The order is the
-- primary key's, which costs nothing on it and is what keeps the plan there
-- when the statement is prepared on a table never analyzed (a new
-- deployment's first contexts): without it the planner took the session
-- index with the tenant as its only condition, a scan of every entry of
-- the tenant for each search, and kept that plan until the next analyze.
-- With $7 set, a user with at least $7 entries (search_user_stats) is not
-- read here but by SearchCandidates, queued in the same batch; stats is
-- NULL (the ranking counts the rows read).
SELECT e.kind, e.source_id, e.session_id, e.role, e.occurred_at, e.term_count, e.agent_id, e.body,
       CASE WHEN $6::boolean OR ts_match_vq(e.terms, $3::tsquery) THEN tsvectorsend(e.terms) END AS terms,
       CASE WHEN e.embedding_model = $5 AND vector_dims(e.embedding) = vector_dims($4::halfvec)
            THEN e.embedding <=> $4::halfvec END AS distance,
       e.kind <> 'fact' OR EXISTS (
           SELECT 1 FROM facts x
           WHERE x.tenant_id = $1 AND x.user_id = $2
             AND x.type = split_part(e.source_id, E'\x1f', 1)
             AND x.value = substr(e.source_id, strpos(e.source_id, E'\x1f') + 1)
             AND x.status = 'active') AS live,
       NULL::float8[] AS stats
FROM search_entries e
WHERE e.tenant_id = $1 AND e.user_id = $2
  AND ($7::bigint IS NULL OR NOT EXISTS (
      SELECT 1 FROM search_user_stats s
      WHERE s.tenant_id = $1 AND s.user_id = $2 AND s.entries >= $7))
ORDER BY e.kind, e.source_id;

-- name: SearchCandidates
-- A large user's entries that a search can find (SearchScan.Large): the
-- same columns as SearchScan's, read through indexes instead of the user's
-- whole range, when the user has at least $7 entries (search_user_stats;
-- no rows otherwise: SearchScan reads the user then, and the two go in one
-- batch). $1 to $6 are SearchScan's; $8 each distinct query term as a
-- tsquery of its own, in the order of a row's TF; $9 NULL, or the time the
-- history is read as of (entries at or after it are not read); $10 how many
-- of the newest entries are read (the sample); $11 the most entries a term
-- may be estimated to be in for its holders to be looked up; $12 how many
-- sessions are read; $13 the most entries of a session read whole; $14
-- and $15 the times the message names (each from and until; empty arrays
-- for none); $16 marks (SearchEntry.Marks) as tsqueries, whose entries
-- are read too (an empty array for none).
--
-- The newest $10 entries are read by time: they are candidates themselves
-- (the recent window of the history), and the sample each term's share of
-- the user's entries is estimated from. The terms estimated in at most $11
-- entries (the rare ones: what a message is about), each session of the
-- sample counted once (a term every turn of the last conversation holds
-- is not common for it), are looked up in the user's GIN postings, and
-- the sessions whose entries hold the most of them, weighed by their IDF
-- (of the holders counted) and by how many of the session's entries hold
-- each (tf, saturated as BM25 saturates a document's: tf * (k1 + 1)
-- / (tf + k1), k1 1.2: a session about the topic repeats its words, one
-- that passes by names them once), are chosen; a term in a larger share (a
-- common one) is not looked up: the entries that hold it and matter hold a
-- rarer term too, or are recent. The chosen sessions are read whole when
-- they are short, and otherwise as the entries around each of their
-- holders (three before and after, by time); with the facts holding a
-- rare term, and the newest $10 entries of each time the message names
-- (what happened "last Saturday" need share no word with the message),
-- and up to $10 entries holding each mark (a turn that says the user's age,
-- for a message that asks for it), through the same GIN postings.
-- Each
-- row carries the statistics BM25 needs of the whole history (stats:
-- entries, their terms, then each query term's number of entries: counted
-- among the holders for a rare term, estimated from the sample for a
-- common one).
WITH stats AS (
    SELECT s.entries, s.terms
    FROM search_user_stats s
    WHERE s.tenant_id = $1 AND s.user_id = $2 AND s.entries >= $7
),
recent AS (
    -- the terms without their positions: read once here, not once a term
    SELECT e.ctid, e.session_id, strip(e.terms) AS terms
    FROM search_entries e
    WHERE e.tenant_id = $1 AND e.user_id = $2 AND EXISTS (SELECT 1 FROM stats)
      AND ($9::timestamptz IS NULL OR e.occurred_at < $9)
    ORDER BY e.occurred_at DESC
    LIMIT $10
),
sample AS (
    SELECT greatest(count(*), 1)::float8 AS n FROM recent
),
term AS (
    -- est: the term's entries in the history, as its share of the sample's;
    -- spread: the same counting each session of the sample once, which
    -- the choice of the terms to look up goes by: the newest entries are
    -- mostly the last few sessions, and a term each of their turns holds
    -- (what the user talked of yesterday, and asks about now) is in a
    -- large share of the sample but may be in no other session
    SELECT t.ord, t.q::tsquery AS q,
           c.n::float8 / sample.n * stats.entries AS est,
           c.sessions::float8 / sample.n * stats.entries AS spread
    FROM unnest($8::text[]) WITH ORDINALITY AS t(q, ord), sample, stats,
         LATERAL (SELECT count(*) AS n, count(DISTINCT r.session_id) AS sessions
                  FROM recent r WHERE r.terms @@ t.q::tsquery) c
),
rare AS (
    -- the rarest terms first, while their spread adds up to $11
    SELECT t.ord, t.q
    FROM (SELECT term.*, sum(term.spread) OVER (ORDER BY term.spread, term.ord) AS upto FROM term) t
    WHERE t.upto <= $11
),
held AS (
    -- through the GIN index only: its first key is the tenant and user as
    -- one text, which no other index has
    SELECT rare.ord, h.ctid, h.session_id, h.occurred_at
    FROM rare,
         LATERAL (SELECT e.ctid, e.session_id, e.occurred_at
                  FROM search_entries e
                  WHERE (e.tenant_id || E'\x1f' || e.user_id) = ($1 || E'\x1f' || $2) AND e.terms @@ rare.q
                    AND ($9::timestamptz IS NULL OR e.occurred_at < $9)
                  LIMIT $11) h
),
df AS (
    SELECT ord, count(*)::float8 AS n FROM held GROUP BY ord
),
marked AS (
    SELECT h.ctid
    FROM unnest($16::text[]) AS m(q),
         LATERAL (SELECT e.ctid
                  FROM search_entries e
                  WHERE (e.tenant_id || E'\x1f' || e.user_id) = ($1 || E'\x1f' || $2) AND e.terms @@ m.q::tsquery
                    AND EXISTS (SELECT 1 FROM stats)
                    AND ($9::timestamptz IS NULL OR e.occurred_at < $9)
                  LIMIT $10) h
),
chosen AS (
    SELECT c.session_id, x.message_count
    FROM (
        (SELECT h.session_id
         FROM (SELECT held.session_id, held.ord, count(*) AS tf, max(held.occurred_at) AS at
               FROM held
               WHERE held.session_id <> ''
               GROUP BY held.session_id, held.ord) h
         JOIN df USING (ord), stats
         GROUP BY h.session_id
         ORDER BY sum(ln(1 + (stats.entries - df.n + 0.5) / (df.n + 0.5)) * h.tf * 2.2 / (h.tf + 1.2)) DESC,
                  max(h.at) DESC
         LIMIT $12)
        UNION
        SELECT session_id FROM recent WHERE session_id <> ''
    ) c
    LEFT JOIN LATERAL (SELECT s.message_count FROM sessions s
                       WHERE s.tenant_id = $1 AND s.session_id = c.session_id
                       LIMIT 1) x ON true
),
picked AS (
    -- Each entry by its place in the table (ctid), read once at the end.
    -- The short sessions whole, by the session index (the user is checked
    -- on the rows: a condition on it would offer the user's range too).
    SELECT w.ctid
    FROM chosen c,
         LATERAL (SELECT e.ctid, e.user_id FROM search_entries e
                  WHERE e.tenant_id = $1 AND e.session_id = c.session_id
                  LIMIT 4 * $13) w
    WHERE coalesce(c.message_count, 0) <= $13 AND w.user_id = $2
    UNION
    -- the entries around each holder of a long session's
    SELECT w.ctid
    FROM (SELECT DISTINCT h.session_id, h.occurred_at
          FROM held h JOIN chosen c ON c.session_id = h.session_id
          WHERE coalesce(c.message_count, 0) > $13) h,
         LATERAL ((SELECT e.ctid FROM search_entries e
                   WHERE e.tenant_id = $1 AND e.user_id = $2 AND e.occurred_at <= h.occurred_at
                   ORDER BY e.occurred_at DESC LIMIT 4)
                  UNION ALL
                  (SELECT e.ctid FROM search_entries e
                   WHERE e.tenant_id = $1 AND e.user_id = $2 AND e.occurred_at > h.occurred_at
                   ORDER BY e.occurred_at LIMIT 3)) w
    UNION
    SELECT ctid FROM recent
    UNION
    -- the facts that hold a rare term (a fact has no session)
    SELECT ctid FROM held WHERE session_id = ''
    UNION
    SELECT ctid FROM marked
    UNION
    -- the entries of the times the message names, the newest $10 of each
    SELECT w.ctid
    FROM unnest($14::timestamptz[], $15::timestamptz[]) AS s(since, until),
         LATERAL (SELECT e.ctid FROM search_entries e
                  WHERE e.tenant_id = $1 AND e.user_id = $2 AND EXISTS (SELECT 1 FROM stats)
                    AND e.occurred_at >= s.since AND e.occurred_at < s.until
                    AND ($9::timestamptz IS NULL OR e.occurred_at < $9)
                  ORDER BY e.occurred_at DESC
                  LIMIT $10) w
),
live AS (
    -- the user's active facts, read once: every fact entry is read
    SELECT x.type || E'\x1f' || x.value AS source_id
    FROM facts x
    WHERE x.tenant_id = $1 AND x.user_id = $2 AND x.status = 'active' AND EXISTS (SELECT 1 FROM stats)
),
statrow AS (
    SELECT ARRAY[stats.entries::float8, stats.terms::float8] || ARRAY(
               SELECT coalesce(df.n, term.est) FROM term LEFT JOIN df USING (ord) ORDER BY term.ord) AS a
    FROM stats
)
SELECT e.kind, e.source_id, e.session_id, e.role, e.occurred_at, e.term_count, e.agent_id, e.body,
       CASE WHEN $6::boolean OR ts_match_vq(e.terms, $3::tsquery) THEN tsvectorsend(e.terms) END AS terms,
       CASE WHEN e.embedding_model = $5 AND vector_dims(e.embedding) = vector_dims($4::halfvec)
            THEN e.embedding <=> $4::halfvec END AS distance,
       e.kind <> 'fact' OR e.source_id IN (SELECT source_id FROM live) AS live,
       (SELECT a FROM statrow) AS stats
FROM (
    -- by their places (a TID scan); the user checked on the rows read, as
    -- a condition it would offer the user's range instead
    SELECT * FROM search_entries x WHERE x.ctid = ANY (ARRAY(SELECT ctid FROM picked)) OFFSET 0
) e
WHERE e.tenant_id = $1 AND e.user_id = $2
  AND ($9::timestamptz IS NULL OR e.occurred_at < $9);
