import 'server-only';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { LIMITS } from '@/lib/limits';
import type { DiscoveryOutcome } from './discovery-store';
import { toCallResult } from './result';
import type { McpConnectionSpec } from './store';
import { Semaphore } from './semaphore';
import { toToolInfo } from './tool-info';
import type { OpenedTransport } from './transport';
import { isMcpCallError, McpCallError, type McpCallOptions, type McpCallResult, type McpServerTools, type McpToolInfo } from './types';

/**
 * One server's connection in this process (ADR 054): started on first use and shared by every run; at most
 * spec.maxConcurrent calls in flight (the rest wait, within their own timeout); a crash fails the calls in flight with
 * a clear error and the next use starts the server again after a backoff that doubles per crash in a row; closed when
 * idle. Discovery follows nextCursor up to LIMITS.mcp.tools, and a tools/list_changed notification reads the list
 * again.
 */

export type ConnectionDeps = {
  open: (spec: McpConnectionSpec) => OpenedTransport;
  now?: () => number;
  idleStopMs?: number;
  /** Keep what a list learnt where every process reads it (discovery-store.ts); a failure to keep it is logged only. */
  record?: (outcome: DiscoveryOutcome) => Promise<void>;
};

const CLIENT_INFO = { name: 'ensemble', version: '1.0.0' };

/**
 * Structured output is untrusted data the run sees as such; the SDK would compile each tool's outputSchema with a
 * backtracking regex engine to check it, so it is not checked here (the input schema is, with RE2: call.ts).
 */
const noOutputValidation: jsonSchemaValidator = { getValidator: () => (input: unknown) => ({ valid: true, data: input as never, errorMessage: undefined }) };

type ToolCache = { tools: McpToolInfo[]; truncated: boolean; checkedAt: number };

export class McpConnection {
  readonly slots: Semaphore;
  private client: Client | null = null;
  private opened: OpenedTransport | null = null;
  private connecting: Promise<Client> | null = null;
  private closingOnPurpose = false;
  private crashesInARow = 0;
  private notBefore = 0;
  private lastFailure: string | null = null;
  private inFlight = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  private cache: ToolCache | null = null;
  private listing: Promise<ToolCache> | null = null;
  private stale = true;
  private lastError: { message: string; at: number } | null = null;
  private closed = false;

  constructor(
    readonly spec: McpConnectionSpec,
    private readonly deps: ConnectionDeps,
  ) {
    this.slots = new Semaphore(spec.maxConcurrent);
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** The launcher's pid while a stdio server runs (tests, diagnostics). */
  get pid(): number | null {
    return this.opened?.pid() ?? null;
  }

  get connected(): boolean {
    return this.client !== null;
  }

  /** The connected client, starting the server if needed (after the crash backoff), within the signal. */
  private async ready(signal: AbortSignal): Promise<Client> {
    if (this.closed) throw new McpCallError(`The MCP server "${this.spec.name}" was removed or changed`, 'server_unavailable');
    if (this.client) return this.client;
    // Shared by every caller waiting for the start: bounded by its own timeout, not by the first caller's signal.
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return abortable(this.connecting, signal);
  }

  private async connect(): Promise<Client> {
    const wait = this.notBefore - this.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
    const signal = AbortSignal.timeout(LIMITS.mcp.connectTimeoutMs);
    const opened = this.deps.open(this.spec);
    const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: noOutputValidation });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.stale = true;
      // Read again now, so the next look (a page, an agent's assembly) sees the server's new list without waiting.
      void this.tools(true).catch(() => {});
    });
    client.onerror = (err) => {
      // A line that is not JSON-RPC, or a message over the size bound: the server is broken; end the connection, so
      // the calls in flight fail now rather than at their timeout.
      if (err instanceof SyntaxError || err.name === 'ZodError' || /ReadBuffer exceeded/.test(err.message)) {
        // The first cause is the one to report: after an oversized message the rest of it arrives as broken lines.
        this.lastFailure ??= /ReadBuffer exceeded/.test(err.message)
          ? `sent a message larger than ${LIMITS.mcp.messageBytes} bytes`
          : 'sent a message that is not valid JSON-RPC';
        void opened.transport.close().catch(() => {});
      }
    };
    client.onclose = () => this.onClosed(client, opened);
    this.closingOnPurpose = false;
    this.lastFailure = null;
    try {
      await client.connect(opened.transport, { signal, timeout: LIMITS.mcp.connectTimeoutMs });
    } catch (err) {
      this.noteCrash();
      await client.close().catch(() => {});
      await opened.dispose().catch(() => {});
      // A server that wrote something other than JSON-RPC was closed for it (onerror): that is the reason to give.
      const why = this.lastFailure ? `it ${this.lastFailure}` : this.describe(err, opened);
      this.lastError = { message: why, at: this.now() };
      throw new McpCallError(`The MCP server "${this.spec.name}" could not be started or reached: ${why}`, 'server_unavailable');
    }
    if (this.closed) {
      // Disposed (edited or deleted) while starting: this start must not outlive it.
      this.closingOnPurpose = true;
      await client.close().catch(() => {});
      throw new McpCallError(`The MCP server "${this.spec.name}" was removed or changed`, 'server_unavailable');
    }
    this.client = client;
    this.opened = opened;
    this.stale = true;
    return client;
  }

  private onClosed(client: Client, opened: OpenedTransport) {
    if (this.client !== client) return;
    this.client = null;
    this.opened = null;
    void opened.dispose().catch(() => {});
    if (!this.closingOnPurpose) {
      this.noteCrash();
      const why = this.lastFailure ?? (opened.stderrTail() ? `stopped: ${tellingLine(opened.stderrTail())}` : 'stopped');
      this.lastError = { message: why, at: this.now() };
    }
  }

  private noteCrash() {
    this.crashesInARow++;
    const { minMs, maxMs } = LIMITS.mcp.restartBackoff;
    this.notBefore = this.now() + Math.min(maxMs, minMs * 2 ** (this.crashesInARow - 1));
  }

  private describe(err: unknown, opened?: OpenedTransport): string {
    // A fetch failure's reason (a refused address, a reset) is in its cause chain.
    const messages: string[] = [];
    for (let e: unknown = err; e !== undefined && messages.length < 4; e = e instanceof Error ? e.cause : undefined) {
      // fetch's own "fetch failed" says nothing its cause doesn't say better.
      if (e instanceof Error && e.message === 'fetch failed' && e.cause !== undefined) continue;
      messages.push(e instanceof Error ? (httpStatusText(e) ?? e.message) : String(e));
    }
    // fetch refuses the ports of other protocols (its "bad port" list: 9, 25, 6000…) before any connection.
    const badPort = messages.indexOf('bad port');
    if (badPort >= 0) messages[badPort] = `its port${this.portOfUrl()} is one that fetch never connects to (reserved for another protocol); use another port`;
    const message = messages.join(': ');
    const tail = opened?.stderrTail();
    if (!tail) return message.slice(0, 500);
    // The process ended: its own words say why; the SDK's "Connection closed" (-32000) adds nothing to them.
    if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) return tellingLine(tail).slice(0, 500);
    return `${message} (${tellingLine(tail)})`.slice(0, 500);
  }

  /** " 9" for a URL on port 9; "" when there is no URL or it names no port. */
  private portOfUrl(): string {
    try {
      const port = this.spec.url ? new URL(this.spec.url).port : '';
      return port ? ` ${port}` : '';
    } catch {
      return '';
    }
  }

  private busy() {
    this.inFlight++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private done() {
    this.inFlight--;
    if (this.inFlight === 0 && !this.closed) {
      this.idleTimer = setTimeout(() => void this.stop(), this.deps.idleStopMs ?? LIMITS.mcp.idleStopMs);
      this.idleTimer.unref();
    }
  }

  /** Close the connection on purpose (idle, or the process ends): a stdio server's process ends with it. */
  async stop(): Promise<void> {
    const client = this.client;
    if (!client) return;
    this.closingOnPurpose = true;
    await client.close().catch(() => {});
  }

  /** Stop for good: the definition changed or was deleted (a new connection takes its place). */
  async dispose(): Promise<void> {
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    await this.stop();
  }

  /** The server's tools: the cached list unless it is stale (a new connection, list_changed) or refresh is asked. */
  async tools(refresh = false): Promise<McpServerTools> {
    try {
      const fresh = this.cache && !this.stale && (!refresh || this.now() - this.cache.checkedAt < LIMITS.mcp.refreshMinMs);
      const cache = fresh ? this.cache! : await this.listOnce();
      return { status: 'connected', checkedAt: new Date(cache.checkedAt).toISOString(), tools: cache.tools, ...(cache.truncated ? { toolsTruncated: true } : {}) };
    } catch (err) {
      const message = isMcpCallError(err) ? err.message : this.describe(err);
      this.lastError = { message, at: this.now() };
      return { status: 'error', checkedAt: new Date(this.now()).toISOString(), error: message, tools: [] };
    }
  }

  /** The last known tool (for validating a call) without a server round trip when the list is fresh. */
  async tool(name: string, signal: AbortSignal): Promise<McpToolInfo | undefined> {
    const cache = !this.stale && this.cache ? this.cache : await abortable(this.listOnce(), signal);
    return cache.tools.find((t) => t.name === name);
  }

  private listOnce(): Promise<ToolCache> {
    this.listing ??= this.list().finally(() => {
      this.listing = null;
    });
    return this.listing;
  }

  private async list(): Promise<ToolCache> {
    this.busy();
    const signal = AbortSignal.timeout(this.spec.timeoutMs);
    try {
      const client = await this.ready(signal);
      this.stale = false;
      const tools: McpToolInfo[] = [];
      const seen = new Set<string>();
      let cursor: string | undefined;
      let truncated = false;
      for (let page = 0; ; page++) {
        if (page >= LIMITS.mcp.tools.pages) {
          truncated = true;
          break;
        }
        const res = await client.listTools(cursor ? { cursor } : {}, { signal, timeout: this.spec.timeoutMs });
        for (const raw of res.tools) {
          if (tools.length >= LIMITS.mcp.tools.max) {
            truncated = true;
            break;
          }
          const info = toToolInfo(raw as never);
          if (info && !seen.has(info.name)) {
            seen.add(info.name);
            tools.push(info);
          }
        }
        if (truncated || !res.nextCursor) break;
        cursor = res.nextCursor;
      }
      this.cache = { tools, truncated, checkedAt: this.now() };
      this.crashesInARow = 0;
      await this.keep({ ok: true, tools, truncated, at: this.cache.checkedAt });
      return this.cache;
    } catch (err) {
      this.stale = true;
      const failure = this.callError(err, signal, undefined, 'tools/list');
      await this.keep({ ok: false, error: failure.message, at: this.now() });
      throw failure;
    } finally {
      this.done();
    }
  }

  private async keep(outcome: DiscoveryOutcome): Promise<void> {
    if (!this.deps.record || this.closed) return;
    try {
      await this.deps.record(outcome);
    } catch (err) {
      console.error(`[mcp] the discovery of "${this.spec.name}" was not kept: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Call a tool (arguments already validated): within the timeout, cancellable, capped. */
  async call(name: string, args: Record<string, unknown>, opts: McpCallOptions = {}): Promise<McpCallResult> {
    const timeoutMs = opts.timeoutMs ?? this.spec.timeoutMs;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
    this.busy();
    let release: (() => void) | null = null;
    try {
      release = await this.slots.acquire(signal);
      const client = await this.ready(signal);
      const started = this.now();
      const raw = await client.callTool({ name, arguments: args }, undefined, {
        // The SDK sends notifications/cancelled when this signal aborts (the caller's cancel or the deadline).
        signal,
        timeout: Math.max(1, timeoutMs - (this.now() - started)) + 1_000,
        ...(opts.onProgress
          ? {
              onprogress: (p: { progress: number; total?: number; message?: string }) =>
                opts.onProgress!({ progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message !== undefined ? { message: String(p.message).slice(0, 500) } : {}) }),
            }
          : {}),
      });
      this.crashesInARow = 0;
      return toCallResult(raw as never);
    } catch (err) {
      throw this.callError(err, signal, opts.signal, name, deadline, timeoutMs);
    } finally {
      release?.();
      this.done();
    }
  }

  private callError(err: unknown, signal: AbortSignal, callerSignal: AbortSignal | undefined, what: string, deadline?: AbortSignal, timeoutMs = this.spec.timeoutMs): McpCallError {
    if (isMcpCallError(err)) return err;
    const server = `The MCP server "${this.spec.name}"`;
    if (callerSignal?.aborted) return new McpCallError(`${what} on ${server.slice(4)} was cancelled`, 'cancelled');
    if (deadline?.aborted || signal.aborted || (err instanceof McpError && err.code === ErrorCode.RequestTimeout)) {
      const ms = timeoutMs;
      return new McpCallError(`${server} did not answer ${what} within ${ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`}`, 'timeout');
    }
    if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
      const why = this.lastFailure ?? this.lastError?.message ?? 'stopped';
      return new McpCallError(`${server} ${why.startsWith('stopped') || why.startsWith('sent') ? why : `stopped (${why})`} during ${what}; it starts again on the next call`, why.startsWith('sent') ? 'protocol' : 'interrupted');
    }
    if (err instanceof McpError) return new McpCallError(`${server} refused ${what}: ${err.message}`.slice(0, 1000), 'protocol');
    if (err instanceof Error && (err.name === 'ZodError' || err instanceof SyntaxError)) {
      return new McpCallError(`${server} answered ${what} with a message that is not a valid MCP result`, 'protocol');
    }
    return new McpCallError(`${server} failed ${what}: ${this.describe(err)}`.slice(0, 1000), 'server_unavailable');
  }
}

/**
 * The line of a stdio server's error output that says what went wrong: the last one naming an error the way
 * JavaScript and Python do (`Error: Cannot find module …`, `ModuleNotFoundError: …`), else the last line. Node ends
 * an uncaught error with its version line, which says nothing.
 */
function tellingLine(tail: string): string {
  const lines = tail.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.findLast((l) => /\b\w*Error:/.test(l)) ?? lines.at(-1) ?? '';
}

/**
 * The SDK's Streamable HTTP error (`code`: the HTTP status; message "Streamable HTTP error: Error POSTing to endpoint:
 * <body>") as the person needs it: the status, what to check for it, then the server's body.
 */
function httpStatusText(err: Error): string | undefined {
  const status = (err as { code?: unknown }).code;
  const match = /^Streamable HTTP error: (?:Error POSTing to endpoint: ?)?([\s\S]*)$/.exec(err.message);
  if (typeof status !== 'number' || status < 400 || !match) return undefined;
  const check = status === 401 || status === 403 ? ' (check the headers it needs, such as Authorization)' : status === 404 || status === 405 ? ' (check the URL)' : '';
  return `HTTP ${status}${check}${match[1] ? `: ${match[1]}` : ''}`;
}

/** The promise, or the signal's reason if it aborts first (the promise itself goes on: it is shared). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
