DROP TABLE IF EXISTS decayer_runs;
