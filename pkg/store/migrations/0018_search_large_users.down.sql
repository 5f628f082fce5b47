DROP INDEX IF EXISTS search_entries_user_time_idx;
DROP INDEX IF EXISTS search_entries_user_terms_idx;
DROP TRIGGER IF EXISTS search_user_stats_update ON search_entries;
DROP TRIGGER IF EXISTS search_user_stats_delete ON search_entries;
DROP TRIGGER IF EXISTS search_user_stats_insert ON search_entries;
DROP FUNCTION IF EXISTS search_user_stats_add();
DROP TABLE IF EXISTS search_user_stats;
