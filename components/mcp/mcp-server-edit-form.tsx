'use client';

import { useMcpChanged } from './use-mcp-changed';
import { useState, type FormEvent } from 'react';
import { updateAdminMcpServerAction } from '@/app/(app)/admin/mcp-actions';
import { updateMcpServerAction } from '@/app/(app)/settings/mcp-actions';
import { useActionCall } from '@/components/admin/use-action-call';
import { EditFormFooter } from '@/components/ui/edit-form-footer';
import { Field } from '@/components/ui/field';
import { Input, Textarea } from '@/components/ui/input';
import { LIMITS } from '@/lib/limits';
import type { McpServerView } from '@/lib/schemas/mcp-servers';
import type { McpScope } from './queries';
import { argLines, parseSecretLines } from './secret-lines';

const FIELDS = ['name', 'url', 'headers', 'command', 'args', 'env', 'timeoutMs', 'maxConcurrent'] as const;
/** The API's timeout is in milliseconds; this field is in seconds, so its refusal is said in seconds too. */
const TIMEOUT_ERROR = `A number of seconds from ${LIMITS.mcp.timeoutMs.min / 1000} to ${LIMITS.mcp.timeoutMs.max / 1000}`;

/**
 * Edit a server. Stored header and env values can't be shown, so they are kept unless new lines are typed, which
 * replace them all. A new URL (it may hold a token) is sent only when typed.
 */
export function McpServerEditForm({ scope, server, onDone }: { scope: McpScope; server: McpServerView; onDone: () => void }) {
  const changed = useMcpChanged();
  const [name, setName] = useState(server.name);
  const [url, setUrl] = useState('');
  const [secrets, setSecrets] = useState('');
  const [command, setCommand] = useState(server.command ?? '');
  const [args, setArgs] = useState(server.args.join('\n'));
  const [timeoutSeconds, setTimeoutSeconds] = useState(String(server.timeoutMs / 1000));
  const [maxConcurrent, setMaxConcurrent] = useState(String(server.maxConcurrent));
  const [lineError, setLineError] = useState<string | null>(null);
  const { call, pending, fieldErrors: errors, error } = useActionCall(FIELDS);
  const http = server.transport === 'http';
  const secretNames = http ? server.headerNames : server.envNames;

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setLineError(null);
    const input: Record<string, unknown> = { name: name.trim(), timeoutMs: Math.round(Number(timeoutSeconds) * 1000), maxConcurrent: Number(maxConcurrent) };
    if (secrets.trim()) {
      const parsed = parseSecretLines(secrets, http ? ':' : '=');
      if (!parsed.ok) return setLineError(`Line ${parsed.line}: write each as ${http ? 'Name: value' : 'NAME=value'}`);
      input[http ? 'headers' : 'env'] = parsed.value;
    }
    if (http && url.trim()) input.url = url.trim();
    if (!http) Object.assign(input, { command: command.trim(), args: argLines(args) });
    const result = await call(() => (scope === 'admin' ? updateAdminMcpServerAction(server.id, input) : updateMcpServerAction(server.id, input)));
    if (!result.ok) return;
    changed();
    onDone();
  };

  return (
    <form onSubmit={submit} noValidate aria-label={`Edit ${server.name}`} className="space-y-3 rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Name" error={errors.name}>
          <Input type="text" autoComplete="off" spellCheck={false} value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        {http ? (
          <Field label="New URL" hint={`Leave empty to keep ${server.url ?? 'the stored one'}.`} error={errors.url}>
            <Input type="url" autoComplete="off" spellCheck={false} value={url} onChange={(e) => setUrl(e.target.value)} />
          </Field>
        ) : (
          <>
            <Field label="Command" error={errors.command}>
              <Input type="text" autoComplete="off" spellCheck={false} value={command} onChange={(e) => setCommand(e.target.value)} />
            </Field>
            <Field label="Arguments" hint="One per line." error={errors.args}>
              <Textarea className="font-mono" rows={3} spellCheck={false} value={args} onChange={(e) => setArgs(e.target.value)} />
            </Field>
          </>
        )}
        <Field
          label={http ? 'Replace headers' : 'Replace environment'}
          hint={
            secretNames.length
              ? `Leave empty to keep ${secretNames.join(', ')}. Lines typed here replace them all.`
              : `None set. One per line, as ${http ? 'Name: value' : 'NAME=value'}.`
          }
          error={(http ? errors.headers : errors.env) ?? lineError ?? undefined}
        >
          <Textarea className="font-mono" rows={3} autoComplete="off" spellCheck={false} value={secrets} onChange={(e) => setSecrets(e.target.value)} />
        </Field>
        <Field label="Timeout per call (seconds)" error={errors.timeoutMs ? TIMEOUT_ERROR : undefined}>
          <Input type="text" inputMode="numeric" autoComplete="off" value={timeoutSeconds} onChange={(e) => setTimeoutSeconds(e.target.value)} />
        </Field>
        <Field label="Calls at once" error={errors.maxConcurrent}>
          <Input type="text" inputMode="numeric" autoComplete="off" value={maxConcurrent} onChange={(e) => setMaxConcurrent(e.target.value)} />
        </Field>
      </div>
      <EditFormFooter pending={pending} error={error} onCancel={onDone} />
    </form>
  );
}
