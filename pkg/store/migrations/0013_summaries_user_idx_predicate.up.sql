-- The index of a user's current summaries (the context's earlier sessions)
-- gets a predicate that only a query naming the user implies. user_id is
-- NOT NULL, so it holds the same rows; but a query by session
-- (tenant_id, session_id AND current: the summarizer's retire and read of the
-- current version, every summary written) can no longer use it. On a table
-- that was empty when such a statement was first planned (a new deployment's
-- first import, every make check-data), the planner saw no difference between
-- this index, with tenant_id as its only condition, and the session index,
-- and kept the plan that scans every current summary of the tenant for each
-- lookup until the table was next analyzed: 21,596 scans read 133 million
-- index entries in one make check-data (138k turns, 13k summaries). A clause
-- user_id = $n implies user_id IS NOT NULL, so the context's query still uses
-- it.
DROP INDEX session_summaries_user_idx;
CREATE INDEX session_summaries_user_idx ON session_summaries (tenant_id, user_id, covers_to DESC)
    WHERE current AND user_id IS NOT NULL;
