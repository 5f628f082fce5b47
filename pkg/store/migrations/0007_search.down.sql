DROP TABLE IF EXISTS search_entries;
