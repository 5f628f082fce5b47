DROP TABLE IF EXISTS item_notifications;
DROP TABLE IF EXISTS seen_lists;
DROP TABLE IF EXISTS seen_items;
DROP INDEX IF EXISTS messages_session_list_idx;
