DROP INDEX session_summaries_user_idx;
CREATE INDEX session_summaries_user_idx ON session_summaries (tenant_id, user_id, covers_to DESC) WHERE current;
