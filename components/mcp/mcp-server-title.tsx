import { Badge } from '@/components/ui/misc';
import type { McpServerSummary } from '@/lib/schemas/mcp-servers';
import { cn } from '@/components/ui/cn';

/** An MCP server's name and how it is reached, as every list of servers shows them. */
export function McpServerTitle({ server, className }: { server: Pick<McpServerSummary, 'name' | 'transport'>; className?: string }) {
  return (
    <p className={cn('flex flex-wrap items-center gap-2', className)}>
      <span className="min-w-0 font-medium break-words text-zinc-900 dark:text-zinc-100">{server.name}</span>
      <Badge>{server.transport === 'http' ? 'Streamable HTTP' : 'stdio'}</Badge>
    </p>
  );
}
