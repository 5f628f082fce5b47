DROP TABLE IF EXISTS user_profiles;
DROP TABLE IF EXISTS shelf_items;
DROP TABLE IF EXISTS catalog_items;
