-- name: SessionGet
SELECT session_id, user_id, site_id, agent_id, message_count, system_count,
       first_message_at, last_message_at, created_at, updated_at
FROM sessions
WHERE tenant_id = $1 AND session_id = $2;

-- name: SessionDelete
DELETE FROM sessions WHERE tenant_id = $1 AND session_id = $2
RETURNING user_id;

-- name: SessionGetWithRecent
-- A session and its newest messages (newest first) in one statement: the context
-- read path ($5: include system turns). No row at all means no such session; a session without messages in
-- range comes back as one row with NULL message columns.
SELECT s.session_id, s.user_id, s.site_id, s.agent_id, s.message_count, s.system_count,
       s.first_message_at, s.last_message_at, s.created_at, s.updated_at,
       m.event_id, m.user_id, m.site_id, m.agent_id, m.role, m.content,
       m.tool_calls, m.items, m.metadata, m.occurred_at, m.stored_at
FROM sessions s
LEFT JOIN LATERAL (
    SELECT event_id, user_id, site_id, agent_id, role, content, tool_calls, items, metadata, occurred_at, stored_at
    FROM messages
    WHERE tenant_id = s.tenant_id AND session_id = s.session_id AND occurred_at >= $3
      AND (role <> 'system' OR $5)
    ORDER BY occurred_at DESC, event_id DESC
    LIMIT $4
) m ON true
WHERE s.tenant_id = $1 AND s.session_id = $2
ORDER BY m.occurred_at DESC, m.event_id DESC;
