-- name: SessionGet
SELECT session_id, user_id, site_id, agent_id, message_count, system_count,
       first_message_at, last_message_at, created_at, updated_at
FROM sessions
WHERE tenant_id = $1 AND session_id = $2;

-- name: SessionDelete
DELETE FROM sessions WHERE tenant_id = $1 AND session_id = $2
RETURNING user_id;

