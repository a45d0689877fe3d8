import 'server-only';
import { NextResponse } from 'next/server';
import type { z } from 'zod';
import { LIMITS } from '@/lib/limits';
import { jsonHasLoneSurrogate } from '@/lib/text';
import { AppError, badRequest, tooLarge, validationError } from './errors';
import { parseOrThrow } from './validation';

type Handler<C> = (req: Request, ctx: C) => Promise<Response> | Response;

/** Wrap a route handler: AppErrors become their JSON shape, anything else a logged 500. */
export function route<C>(handler: Handler<C>): Handler<C> {
  return async (req, ctx) => {
    try {
      return await handler(req, ctx);
    } catch (err) {
      return errorResponse(err);
    }
  };
}

export function errorResponse(err: unknown): Response {
  if (err instanceof AppError) {
    return NextResponse.json(err.toBody(), { status: err.status, headers: err.headers });
  }
  console.error('[api] unhandled error', err);
  return NextResponse.json({ error: { code: 'internal_error', message: 'Something went wrong' } }, { status: 500 });
}

/** Read a JSON body within the size limit: 413 when larger, 400 when malformed, 422 on lone surrogates. */
export async function readJson(req: Request, maxBytes: number = LIMITS.requestBodyBytes): Promise<unknown> {
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const buf = await req.arrayBuffer();
  if (buf.byteLength > maxBytes) throw tooLarge(maxBytes);
  const raw = new TextDecoder().decode(buf);
  if (!raw.trim()) throw badRequest('invalid_json', 'Request body must be a JSON object');
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw badRequest('invalid_json', 'Request body is not valid JSON');
  }
  if (jsonHasLoneSurrogate(body)) {
    throw validationError({ _: 'Text contains an unpaired UTF-16 surrogate' });
  }
  return body;
}

/** Read and validate a JSON body with a zod schema. */
export async function readBody<S extends z.ZodType>(req: Request, schema: S, maxBytes?: number): Promise<z.output<S>> {
  return parseOrThrow(schema, await readJson(req, maxBytes));
}

export const json = (data: unknown, init?: ResponseInit) => NextResponse.json(data, init);
