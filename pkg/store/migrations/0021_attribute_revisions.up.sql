-- Each user's attribute assertions have a revision, moved by every statement
-- that writes or deletes any of them (statement triggers, in the writer's
-- own transaction, as search_user_stats' are): a context's reader keeps
-- what it resolved of a user's assertions by their revision, and reads them
-- again only once it moved (AttributeAssertionListForContext). A user's
-- self-statements are one key of up to a thousand values that every context
-- of the user resolves, and they change only when the user says something
-- new about themselves.
--
-- A revision is drawn from one sequence, never from the user's last: a
-- forgotten user's row goes with the rest of them (ForgetUser), and the
-- revisions of their assertions after that can then never be one a reader
-- still holds from before.
CREATE SEQUENCE attribute_revision_seq;

CREATE TABLE attribute_revisions (
    tenant_id text   NOT NULL,
    user_id   text   NOT NULL,
    revision  bigint NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
);

INSERT INTO attribute_revisions (tenant_id, user_id, revision)
SELECT u.tenant_id, u.user_id, nextval('attribute_revision_seq')
FROM (SELECT DISTINCT tenant_id, user_id FROM attribute_assertions) u;

-- One statement's users' revisions moved on, in the users' order (so that
-- concurrent writers lock the rows in the same order). A user whose
-- assertions are all gone keeps a row until forgotten.
CREATE FUNCTION attribute_revisions_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO attribute_revisions (tenant_id, user_id, revision)
        SELECT u.tenant_id, u.user_id, nextval('attribute_revision_seq')
        FROM (SELECT DISTINCT tenant_id, user_id FROM old_rows ORDER BY 1, 2) u
        ON CONFLICT (tenant_id, user_id) DO UPDATE SET revision = EXCLUDED.revision;
    ELSE
        INSERT INTO attribute_revisions (tenant_id, user_id, revision)
        SELECT u.tenant_id, u.user_id, nextval('attribute_revision_seq')
        FROM (SELECT DISTINCT tenant_id, user_id FROM new_rows ORDER BY 1, 2) u
        ON CONFLICT (tenant_id, user_id) DO UPDATE SET revision = EXCLUDED.revision;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER attribute_revisions_insert AFTER INSERT ON attribute_assertions
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION attribute_revisions_bump();
CREATE TRIGGER attribute_revisions_delete AFTER DELETE ON attribute_assertions
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION attribute_revisions_bump();
CREATE TRIGGER attribute_revisions_update AFTER UPDATE ON attribute_assertions
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION attribute_revisions_bump();
