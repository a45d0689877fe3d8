-- Agents saved before deleting an MCP server took it out of them (ADR 055) can still name a server that no longer
-- exists, or one their owner may not use. Each such entry goes from agents.mcp_tools with its approval rules: the
-- server's rule (mcp_server:<id>) and its tools' rules (mcp_<tag>_<tool>, the tag being FNV-1a of the server id as 8
-- hex digits, lib/mcp/tool-name.ts), unless a server the agent keeps has the same tag; lib/mcp/approval-rule.ts's
-- withoutMcpServers, in SQL. Server ids are UUIDs (ASCII), so a character's code is its byte.
WITH RECURSIVE
  sel AS (
    SELECT a."id" AS agent_id, e.value ->> 'serverId' AS server_id,
      NOT EXISTS (SELECT 1 FROM "mcp_servers" s WHERE s."id" = e.value ->> 'serverId' AND (s."owner_id" IS NULL OR s."owner_id" = a."owner_id")) AS gone
    FROM "agents" a, json_array_elements(a."mcp_tools") e
  ),
  fnv AS (
    SELECT agent_id, server_id, gone, 0 AS i, 2166136261::bigint AS h FROM sel WHERE agent_id IN (SELECT agent_id FROM sel WHERE gone)
    UNION ALL
    SELECT agent_id, server_id, gone, i + 1, ((h # ascii(substr(server_id, i + 1, 1))::bigint) * 16777619) & 4294967295
    FROM fnv WHERE i < length(server_id)
  ),
  tag AS (
    SELECT agent_id, server_id, gone, lpad(to_hex(h), 8, '0') AS tag FROM fnv WHERE i = length(server_id)
  ),
  gone_tag AS (
    SELECT agent_id, tag FROM tag t WHERE gone AND NOT EXISTS (SELECT 1 FROM tag k WHERE k.agent_id = t.agent_id AND NOT k.gone AND k.tag = t.tag)
  )
UPDATE "agents" a SET
  "mcp_tools" = coalesce((
    SELECT json_agg(e.value ORDER BY e.ord) FROM json_array_elements(a."mcp_tools") WITH ORDINALITY e(value, ord)
    WHERE NOT EXISTS (SELECT 1 FROM sel WHERE sel.agent_id = a."id" AND sel.gone AND sel.server_id = e.value ->> 'serverId')
  ), '[]'::json),
  "approval_tools" = coalesce((
    SELECT json_agg(r.value ORDER BY r.ord) FROM json_array_elements_text(a."approval_tools") WITH ORDINALITY r(value, ord)
    WHERE NOT EXISTS (SELECT 1 FROM sel WHERE sel.agent_id = a."id" AND sel.gone AND r.value = 'mcp_server:' || sel.server_id)
      AND NOT (
        r.value ~ '^mcp_[0-9a-f]{8}_[A-Za-z0-9_-]{1,51}$'
        AND EXISTS (SELECT 1 FROM gone_tag g WHERE g.agent_id = a."id" AND g.tag = substr(r.value, 5, 8))
      )
  ), '[]'::json),
  "updated_at" = now()
WHERE a."id" IN (SELECT agent_id FROM sel WHERE gone);
