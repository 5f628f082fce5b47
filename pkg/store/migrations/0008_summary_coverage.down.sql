DROP INDEX IF EXISTS session_summaries_user_idx;
CREATE INDEX session_summaries_user_idx ON session_summaries (tenant_id, user_id, last_at DESC) WHERE current;
ALTER TABLE session_summaries
    DROP COLUMN IF EXISTS covers_from,
    DROP COLUMN IF EXISTS covers_to;
DROP INDEX IF EXISTS messages_unsummarized_idx;
ALTER TABLE messages DROP COLUMN IF EXISTS summarized;
