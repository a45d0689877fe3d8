'use client';

import { useMcpChanged } from './use-mcp-changed';
import { useState, type FormEvent } from 'react';
import { createAdminMcpServerAction } from '@/app/(app)/admin/mcp-actions';
import { createMcpServerAction } from '@/app/(app)/settings/mcp-actions';
import { useActionCall } from '@/components/admin/use-action-call';
import { AddFormFooter } from '@/components/ui/add-form-footer';
import { Field } from '@/components/ui/field';
import { Input, Select, Textarea } from '@/components/ui/input';
import { LIMITS } from '@/lib/limits';
import { argLines, parseSecretLines } from './secret-lines';
import type { McpScope } from './queries';

const FIELDS = ['name', 'url', 'headers', 'command', 'args', 'env', 'timeoutMs', 'maxConcurrent'] as const;
/** The API's timeout is in milliseconds; this field is in seconds, so its refusal is said in seconds too. */
const TIMEOUT_ERROR = `A number of seconds from ${LIMITS.mcp.timeoutMs.min / 1000} to ${LIMITS.mcp.timeoutMs.max / 1000}`;

/**
 * Add an MCP server. An account adds one reached over Streamable HTTP (URL and headers); an admin may also add one
 * that runs a command (stdio: command, arguments, env). Header and env values are sent once and never shown again.
 */
export function McpServerForm({ scope }: { scope: McpScope }) {
  const changed = useMcpChanged();
  const [transport, setTransport] = useState<'http' | 'stdio'>('http');
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [headers, setHeaders] = useState('');
  const [command, setCommand] = useState('');
  const [args, setArgs] = useState('');
  const [env, setEnv] = useState('');
  const [timeoutSeconds, setTimeoutSeconds] = useState(String(LIMITS.mcp.timeoutMs.default / 1000));
  const [maxConcurrent, setMaxConcurrent] = useState(String(LIMITS.mcp.maxConcurrent.default));
  const [lineError, setLineError] = useState<{ field: 'headers' | 'env'; message: string } | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const { call, pending, fieldErrors: errors, error } = useActionCall(FIELDS);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setAdded(null);
    setLineError(null);
    const common = { name: name.trim(), timeoutMs: Math.round(Number(timeoutSeconds) * 1000), maxConcurrent: Number(maxConcurrent) };
    let input: Record<string, unknown>;
    if (transport === 'http') {
      const parsed = parseSecretLines(headers, ':');
      if (!parsed.ok) return setLineError({ field: 'headers', message: `Line ${parsed.line}: write each header as Name: value` });
      input = { ...common, transport, url: url.trim(), headers: parsed.value };
    } else {
      const parsed = parseSecretLines(env, '=');
      if (!parsed.ok) return setLineError({ field: 'env', message: `Line ${parsed.line}: write each variable as NAME=value` });
      input = { ...common, transport, command: command.trim(), args: argLines(args), env: parsed.value };
    }
    const result = await call(() => (scope === 'admin' ? createAdminMcpServerAction(input) : createMcpServerAction(input)));
    if (!result.ok) return;
    setAdded(result.data.name);
    setName('');
    setUrl('');
    setHeaders('');
    setCommand('');
    setArgs('');
    setEnv('');
    changed();
  };

  return (
    <form onSubmit={submit} noValidate aria-labelledby={`add-mcp-${scope}-heading`} className="space-y-3">
      <h3 id={`add-mcp-${scope}-heading`} className="font-medium text-zinc-900 dark:text-zinc-100">
        Add an MCP server
      </h3>
      <div className="grid gap-3 sm:grid-cols-2">
        {scope === 'admin' ? (
          <Field label="Transport">
            <Select value={transport} onChange={(e) => setTransport(e.target.value as 'http' | 'stdio')}>
              <option value="http">Streamable HTTP (a URL)</option>
              <option value="stdio">stdio (a command this server runs)</option>
            </Select>
          </Field>
        ) : null}
        <Field label="Name" hint={`Lowercase letters, digits and hyphens, up to ${LIMITS.mcp.name.maxChars}; steps show it.`} error={errors.name}>
          <Input type="text" autoComplete="off" spellCheck={false} value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        {transport === 'http' ? (
          <>
            <Field label="URL" hint="The server's Streamable HTTP endpoint, e.g. https://mcp.example.com/mcp. Put a token in a header, not here." error={errors.url}>
              <Input type="url" autoComplete="off" spellCheck={false} value={url} onChange={(e) => setUrl(e.target.value)} />
            </Field>
            <Field
              label="Headers"
              hint="One per line, as Name: value (e.g. Authorization: Bearer …). Stored encrypted; only the names are shown again."
              error={errors.headers ?? (lineError?.field === 'headers' ? lineError.message : undefined)}
            >
              <Textarea className="font-mono" rows={3} autoComplete="off" spellCheck={false} value={headers} onChange={(e) => setHeaders(e.target.value)} />
            </Field>
          </>
        ) : (
          <>
            <Field label="Command" hint="The program to run, e.g. npx or /usr/local/bin/my-server. It runs as this app's user, in its own directory." error={errors.command}>
              <Input type="text" autoComplete="off" spellCheck={false} value={command} onChange={(e) => setCommand(e.target.value)} />
            </Field>
            <Field label="Arguments" hint="One per line." error={errors.args}>
              <Textarea className="font-mono" rows={3} autoComplete="off" spellCheck={false} value={args} onChange={(e) => setArgs(e.target.value)} />
            </Field>
            <Field
              label="Environment"
              hint="One per line, as NAME=value. Stored encrypted; only the names are shown again."
              error={errors.env ?? (lineError?.field === 'env' ? lineError.message : undefined)}
            >
              <Textarea className="font-mono" rows={3} autoComplete="off" spellCheck={false} value={env} onChange={(e) => setEnv(e.target.value)} />
            </Field>
          </>
        )}
        <Field label="Timeout per call (seconds)" hint={`${LIMITS.mcp.timeoutMs.min / 1000} to ${LIMITS.mcp.timeoutMs.max / 1000}.`} error={errors.timeoutMs ? TIMEOUT_ERROR : undefined}>
          <Input type="text" inputMode="numeric" autoComplete="off" value={timeoutSeconds} onChange={(e) => setTimeoutSeconds(e.target.value)} />
        </Field>
        <Field label="Calls at once" hint={`${LIMITS.mcp.maxConcurrent.min} to ${LIMITS.mcp.maxConcurrent.max}; more wait their turn.`} error={errors.maxConcurrent}>
          <Input type="text" inputMode="numeric" autoComplete="off" value={maxConcurrent} onChange={(e) => setMaxConcurrent(e.target.value)} />
        </Field>
      </div>
      <AddFormFooter label="Add MCP server" pending={pending} error={error} added={added} />
    </form>
  );
}
