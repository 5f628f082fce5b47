-- The decayer's last runs, for operators and the inspector: the API runs in
-- another process than the decayer (a Deployment next to a CronJob), so what
-- the last run did is kept here rather than only in the decayer's metrics.
-- One row per outcome ('ok', 'failed'), overwritten by each run: the newest
-- row is the last run, the 'ok' row the last success. Counts are summed over
-- every tenant; no tenant's data is in it.
CREATE TABLE decayer_runs (
    result      text        PRIMARY KEY CHECK (result IN ('ok', 'failed')),
    -- the run's time: every rule was judged as of it
    at          timestamptz NOT NULL,
    started_at  timestamptz NOT NULL,
    finished_at timestamptz NOT NULL,
    -- per step: name, batches, duration_ms, counts, error
    steps       jsonb       NOT NULL,
    error       text        NOT NULL DEFAULT ''
);
