'use client';

import dynamic from 'next/dynamic';

/**
 * The parts of an MCP server's row that open on demand — its tools and status, its edit form — load when first
 * opened, so Settings and Admin don't carry them in their first load; so does its removal dialog's list of the agents
 * that use it.
 */
export const McpToolsPanel = dynamic(() => import('./mcp-tools-panel').then((m) => m.McpToolsPanel), { ssr: false });
export const McpServerEditForm = dynamic(() => import('./mcp-server-edit-form').then((m) => m.McpServerEditForm), { ssr: false });
export const McpServerUsage = dynamic(() => import('./mcp-server-usage').then((m) => m.McpServerUsage), {
  ssr: false,
  loading: () => <p>Checking which agents use it…</p>,
});
