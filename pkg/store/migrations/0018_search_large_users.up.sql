-- A user with a long history is searched through indexes instead of a scan
-- of every entry (SearchCandidates; docs/scaling.md, "One user's whole
-- life"). Three things serve it:
--
-- search_user_stats counts each user's entries and their terms (BM25's
-- collection size and average length), kept exact by statement triggers on
-- search_entries: every writer (the indexer's upserts, a fact's entry, a
-- summary's, forget and delete) changes them in its own transaction. The
-- count is also what chooses between the scan and the indexes.
CREATE TABLE search_user_stats (
    tenant_id text   NOT NULL,
    user_id   text   NOT NULL,
    entries   bigint NOT NULL DEFAULT 0,
    terms     bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, user_id)
);

INSERT INTO search_user_stats (tenant_id, user_id, entries, terms)
SELECT tenant_id, user_id, count(*), coalesce(sum(term_count), 0)
FROM search_entries
GROUP BY tenant_id, user_id;

-- One statement's change of each user's counts, added in the users' order
-- (so that concurrent writers lock the rows in the same order). A user
-- whose entries are all gone keeps a row of zeros.
CREATE FUNCTION search_user_stats_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO search_user_stats AS s (tenant_id, user_id, entries, terms)
        SELECT tenant_id, user_id, count(*), sum(term_count)
        FROM new_rows GROUP BY tenant_id, user_id ORDER BY tenant_id, user_id
        ON CONFLICT (tenant_id, user_id) DO UPDATE
        SET entries = s.entries + EXCLUDED.entries, terms = s.terms + EXCLUDED.terms;
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE search_user_stats s
        SET entries = s.entries - d.entries, terms = s.terms - d.terms
        FROM (SELECT tenant_id, user_id, count(*) AS entries, sum(term_count) AS terms
              FROM old_rows GROUP BY tenant_id, user_id ORDER BY tenant_id, user_id) d
        WHERE s.tenant_id = d.tenant_id AND s.user_id = d.user_id;
    ELSE
        -- The key (tenant, user, kind, source) never changes in an update:
        -- only an entry's length may.
        UPDATE search_user_stats s
        SET terms = s.terms + d.terms
        FROM (SELECT n.tenant_id, n.user_id, sum(n.term_count - o.term_count) AS terms
              FROM new_rows n
              JOIN old_rows o USING (tenant_id, user_id, kind, source_id)
              GROUP BY n.tenant_id, n.user_id ORDER BY n.tenant_id, n.user_id) d
        WHERE s.tenant_id = d.tenant_id AND s.user_id = d.user_id AND d.terms <> 0;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER search_user_stats_insert AFTER INSERT ON search_entries
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_user_stats_add();
CREATE TRIGGER search_user_stats_delete AFTER DELETE ON search_entries
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_user_stats_add();
CREATE TRIGGER search_user_stats_update AFTER UPDATE ON search_entries
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_user_stats_add();

-- The entries holding a term, within one user: the tenant and user, as one
-- key (joined by U+001F, which no id holds), lead the GIN index (btree_gin),
-- so a lookup reads the user's postings of the term, never the term's
-- across every user; and being an expression no other index has, it leaves
-- the planner no other index to read a term's holders through, statistics
-- or none. Only a large user's search reads it (the rarest of the message's
-- terms first); every entry pays its insert, measured by BenchmarkIndex.
-- The pending list of new entries is kept to 1 MB (4 by default): every
-- lookup reads all of it.
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE INDEX IF NOT EXISTS search_entries_user_terms_idx ON search_entries
    USING gin ((tenant_id || E'\x1f' || user_id), terms) WITH (gin_pending_list_limit = 1024);

-- A user's entries by event time: a large user's newest entries, the
-- sample its terms' frequencies are estimated from.
CREATE INDEX IF NOT EXISTS search_entries_user_time_idx ON search_entries (tenant_id, user_id, occurred_at);
