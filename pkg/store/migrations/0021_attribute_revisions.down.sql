DROP TRIGGER IF EXISTS attribute_revisions_update ON attribute_assertions;
DROP TRIGGER IF EXISTS attribute_revisions_delete ON attribute_assertions;
DROP TRIGGER IF EXISTS attribute_revisions_insert ON attribute_assertions;
DROP FUNCTION IF EXISTS attribute_revisions_bump();
DROP TABLE IF EXISTS attribute_revisions;
DROP SEQUENCE IF EXISTS attribute_revision_seq;
