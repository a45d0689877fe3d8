import { z } from 'zod';
import { LIMITS } from '../limits';
import { boundedText } from './common';

/**
 * MCP server definitions (issue 28, ADR 054). Deployment-wide servers (an admin's) run over stdio (command, args,
 * env) or Streamable HTTP (url, headers); an account's own run over HTTP only. The same schemas check the forms and the
 * HTTP API. Secrets — env values, header values, the URL — are write-only: views carry names and "set" only.
 */

export const MCP_SERVER_NAME = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

export const mcpServerNameSchema = z
  .string({ error: 'Must be text' })
  .trim()
  .refine((v) => MCP_SERVER_NAME.test(v), `Use 1 to ${LIMITS.mcp.name.maxChars} lowercase letters, digits and hyphens (not at either end), e.g. "files"`);

const wholeIn = ({ min, max }: { min: number; max: number }) =>
  z
    .number({ error: `Must be a whole number from ${min} to ${max}` })
    .int(`Must be a whole number from ${min} to ${max}`)
    .min(min, `Must be a whole number from ${min} to ${max}`)
    .max(max, `Must be a whole number from ${min} to ${max}`);

export const mcpUrlSchema = z
  .string({ error: 'Must be text' })
  .trim()
  .max(LIMITS.mcp.url.maxChars, `Must be at most ${LIMITS.mcp.url.maxChars} characters`)
  .refine((v) => {
    if (!URL.canParse(v)) return false;
    const url = new URL(v);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && !url.hash;
  }, 'Must be an http(s) URL without credentials or fragment, e.g. https://mcp.example.com/mcp (a token goes in a header)');

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FORBIDDEN_HEADERS = new Set(['host', 'content-length', 'content-type', 'accept', 'connection', 'transfer-encoding', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id']);

const secretValue = (maxChars: number) =>
  z
    .string({ error: 'Must be text' })
    .max(maxChars, `Must be at most ${maxChars} characters`)
    .refine((v) => !CONTROL_CHARS.test(v), 'Must not contain line breaks or control characters');

// An HTTP header value goes on the wire as bytes (fetch refuses anything past U+00FF when it sends, long after the
// definition was saved): visible ASCII and spaces only, so a pasted "…" or "世" is refused where it is typed.
const HEADER_VALUE = /^[\x20-\x7e]*$/;
const headerValue = (maxChars: number) =>
  secretValue(maxChars).refine((v) => HEADER_VALUE.test(v), 'Must be ASCII letters, digits, spaces and punctuation: an HTTP header can\u2019t carry other characters');

const secretMap = (
  bounds: { max: number; nameChars: number; valueChars: number },
  value: (maxChars: number) => z.ZodType<string>,
  name: RegExp,
  nameMessage: string,
  forbidden?: Set<string>,
) =>
  z
    .record(z.string(), value(bounds.valueChars))
    .superRefine((map, ctx) => {
      const names = Object.keys(map);
      if (names.length > bounds.max) ctx.addIssue({ code: 'custom', message: `At most ${bounds.max} entries` });
      for (const n of names) {
        if (n.length > bounds.nameChars || !name.test(n)) ctx.addIssue({ code: 'custom', message: `"${n.slice(0, 40)}": ${nameMessage}`, path: [n] });
        else if (forbidden?.has(n.toLowerCase())) ctx.addIssue({ code: 'custom', message: `"${n}" is set by the client itself`, path: [n] });
      }
    });

export const mcpEnvSchema = secretMap(LIMITS.mcp.env, secretValue, ENV_NAME, 'not a variable name (letters, digits, underscores; not a digit first)');
export const mcpHeadersSchema = secretMap(LIMITS.mcp.headers, headerValue, HEADER_NAME, 'not a header name', FORBIDDEN_HEADERS);

const commandSchema = z
  .string({ error: 'Must be text' })
  .trim()
  .min(1, 'Required')
  .pipe(boundedText({ maxChars: LIMITS.mcp.command.maxChars }))
  .refine((v) => !CONTROL_CHARS.test(v), 'Must not contain line breaks or control characters');

const argsSchema = z
  .array(boundedText({ maxChars: LIMITS.mcp.args.maxChars }), { error: 'Must be a list of texts' })
  .max(LIMITS.mcp.args.max, `At most ${LIMITS.mcp.args.max} arguments`);

const common = {
  name: mcpServerNameSchema,
  timeoutMs: wholeIn(LIMITS.mcp.timeoutMs).optional(),
  maxConcurrent: wholeIn(LIMITS.mcp.maxConcurrent).optional(),
};

export const createHttpMcpServerSchema = z
  .object({ ...common, transport: z.literal('http'), url: mcpUrlSchema, headers: mcpHeadersSchema.optional() })
  .strict();

export const createStdioMcpServerSchema = z
  .object({ ...common, transport: z.literal('stdio'), command: commandSchema, args: argsSchema.optional(), env: mcpEnvSchema.optional() })
  .strict();

/** A deployment-wide server (admin): stdio or http. */
export const createDeploymentMcpServerSchema = z.discriminatedUnion('transport', [createHttpMcpServerSchema, createStdioMcpServerSchema], {
  error: 'transport must be "stdio" or "http"',
});

/**
 * An edit: omitted fields stay. `headers`/`env` replace the whole set when given (values are write-only, so an edit
 * that keeps a value can't resend it: `keep` lists names whose stored values stay). The transport never changes.
 */
export const updateMcpServerSchema = z
  .object({
    name: mcpServerNameSchema.optional(),
    timeoutMs: wholeIn(LIMITS.mcp.timeoutMs).optional(),
    maxConcurrent: wholeIn(LIMITS.mcp.maxConcurrent).optional(),
    url: mcpUrlSchema.optional(),
    headers: mcpHeadersSchema.optional(),
    keepHeaders: z.array(z.string().max(LIMITS.mcp.headers.nameChars)).max(LIMITS.mcp.headers.max).optional(),
    command: commandSchema.optional(),
    args: argsSchema.optional(),
    env: mcpEnvSchema.optional(),
    keepEnv: z.array(z.string().max(LIMITS.mcp.env.nameChars)).max(LIMITS.mcp.env.max).optional(),
  })
  .strict();

export type CreateHttpMcpServerData = z.output<typeof createHttpMcpServerSchema>;
export type CreateDeploymentMcpServerData = z.output<typeof createDeploymentMcpServerSchema>;
export type UpdateMcpServerData = z.output<typeof updateMcpServerSchema>;

/** A server as its owner (or an admin) sees it: names of secrets, never their values; the URL without its query. */
export type McpServerView = {
  id: string;
  name: string;
  /** null: deployment-wide. */
  ownerId: string | null;
  transport: 'stdio' | 'http';
  /** stdio: the command and its arguments (admins only define these). */
  command: string | null;
  args: string[];
  /** http: scheme, host and path; a query (which may hold a token) shows as "?…". */
  url: string | null;
  /** Names of the env variables / headers set; their values are never sent back. */
  envNames: string[];
  headerNames: string[];
  timeoutMs: number;
  maxConcurrent: number;
  createdAt: string;
  updatedAt: string;
};

/** A deployment-wide server as a member sees it: its name and kind, nothing of how it is reached. */
export type McpServerSummary = { id: string; name: string; transport: 'stdio' | 'http'; timeoutMs: number; maxConcurrent: number };

/** A tool as a server's page shows it (the input schema as JSON text, never HTML). */
export type McpToolView = {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  schemaHash: string;
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
};

/**
 * A server's last discovery, by whichever process made it (ADR 057). On an error the tools are those last listed
 * (listedAt: when; null when it has never been listed, so it has no tools).
 */
export type McpServerStatusView = { status: 'connected' | 'error'; checkedAt: string; error?: string; tools: McpToolView[]; toolsTruncated?: boolean; listedAt: string | null };

/**
 * The agents that use a server, as its removal will change them (GET …/mcp/servers/:id/agents): `agents` are the
 * caller's own, by name; `count` is every agent the removal changes — for a deployment-wide server, other accounts'
 * agents too, counted but never named.
 */
export type McpServerUsageView = { agents: Array<{ id: string; name: string }>; count: number };
