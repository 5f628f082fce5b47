DROP TABLE IF EXISTS session_summaries;
ALTER TABLE sessions
    DROP COLUMN IF EXISTS summarized_count,
    DROP COLUMN IF EXISTS summarized_at,
    DROP COLUMN IF EXISTS summary_requested_count;
