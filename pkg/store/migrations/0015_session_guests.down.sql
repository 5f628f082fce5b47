DROP TABLE IF EXISTS session_guests;
