-- Agents saved before deleting an MCP server took it out of them (ADR 055) can still name a server that no longer
-- exists, or one their owner may not use. Each such entry goes from agents.mcp_tools with its approval rules: the
-- server's rule (mcp_server:<id>) and its tools' rules (mcp_<tag>_<tool>, the tag being FNV-1a of the server id as 8
-- hex digits, lib/mcp/tool-name.ts), unless a server the agent keeps has the same tag; lib/mcp/approval-rule.ts's
-- withoutMcpServers, in SQL. Server ids are UUIDs (ASCII), so a character's code is its byte.
WITH RECURSIVE
  sel(agent_id, server_id, gone) AS (
    SELECT a.`id`, json_extract(e.value, '$.serverId'),
      NOT EXISTS (SELECT 1 FROM `mcp_servers` s WHERE s.`id` = json_extract(e.value, '$.serverId') AND (s.`owner_id` IS NULL OR s.`owner_id` = a.`owner_id`))
    FROM `agents` a, json_each(a.`mcp_tools`) e
  ),
  fnv(agent_id, server_id, gone, i, h) AS (
    SELECT agent_id, server_id, gone, 0, 2166136261 FROM sel WHERE agent_id IN (SELECT agent_id FROM sel WHERE gone)
    UNION ALL
    SELECT agent_id, server_id, gone, i + 1,
      (((h | unicode(substr(server_id, i + 1, 1))) - (h & unicode(substr(server_id, i + 1, 1)))) * 16777619) & 4294967295
    FROM fnv WHERE i < length(server_id)
  ),
  tag(agent_id, server_id, gone, tag) AS (
    SELECT agent_id, server_id, gone, printf('%08x', h) FROM fnv WHERE i = length(server_id)
  ),
  gone_tag(agent_id, tag) AS (
    SELECT agent_id, tag FROM tag t WHERE gone AND NOT EXISTS (SELECT 1 FROM tag k WHERE k.agent_id = t.agent_id AND NOT k.gone AND k.tag = t.tag)
  )
UPDATE `agents` SET
  `mcp_tools` = (
    SELECT json_group_array(json(e.value) ORDER BY e.key) FROM json_each(`agents`.`mcp_tools`) e
    WHERE NOT EXISTS (SELECT 1 FROM sel WHERE sel.agent_id = `agents`.`id` AND sel.gone AND sel.server_id = json_extract(e.value, '$.serverId'))
  ),
  `approval_tools` = (
    SELECT json_group_array(r.value ORDER BY r.key) FROM json_each(`agents`.`approval_tools`) r
    WHERE NOT EXISTS (SELECT 1 FROM sel WHERE sel.agent_id = `agents`.`id` AND sel.gone AND r.value = 'mcp_server:' || sel.server_id)
      AND NOT (
        length(r.value) BETWEEN 14 AND 64 AND substr(r.value, 1, 4) = 'mcp_' AND substr(r.value, 13, 1) = '_'
        AND substr(r.value, 14) NOT GLOB '*[^A-Za-z0-9_-]*'
        AND EXISTS (SELECT 1 FROM gone_tag g WHERE g.agent_id = `agents`.`id` AND g.tag = substr(r.value, 5, 8))
      )
  ),
  `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER)
WHERE `id` IN (SELECT agent_id FROM sel WHERE gone);
