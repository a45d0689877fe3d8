import 'server-only';
import { NextRequest, NextResponse } from 'next/server';
import type { z } from 'zod';
import { LIMITS } from '@/lib/limits';
import { jsonHasLoneSurrogate, jsonNestsDeeperThan } from '@/lib/text';
import { readBodyBytes, withBoundedBody } from './body';
import { AppError, badRequest, validationError } from './errors';
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

/**
 * Wrap a handler that reads the body itself (next-auth's POST endpoints): the body is read within
 * LIMITS.requestBodyBytes (413 past it, without buffering the excess) and handed on as an identical NextRequest.
 */
export function boundedBody(handler: (req: NextRequest) => Promise<Response>, maxBytes?: number) {
  return async (req: NextRequest): Promise<Response> => {
    let bounded: NextRequest;
    try {
      bounded = await withBoundedBody(req, (url, init) => new NextRequest(url, init as ConstructorParameters<typeof NextRequest>[1]), maxBytes);
    } catch (err) {
      return errorResponse(err);
    }
    return handler(bounded);
  };
}

export function errorResponse(err: unknown): Response {
  if (err instanceof AppError) {
    return NextResponse.json(err.toBody(), { status: err.status, headers: err.headers });
  }
  console.error('[api] unhandled error', err);
  return NextResponse.json({ error: { code: 'internal_error', message: 'Something went wrong' } }, { status: 500 });
}

/**
 * Read a JSON body within the size limit: 413 when larger (counted while the stream is read, chunked bodies
 * included), 400 when malformed, 422 when nested deeper than LIMITS.jsonMaxDepth (checked on the text before
 * JSON.parse) or holding lone surrogates.
 */
export async function readJson(req: Request, maxBytes: number = LIMITS.requestBodyBytes): Promise<unknown> {
  const raw = new TextDecoder().decode(await readBodyBytes(req, maxBytes));
  if (!raw.trim()) throw badRequest('invalid_json', 'Request body must be a JSON object');
  if (jsonNestsDeeperThan(raw, LIMITS.jsonMaxDepth)) {
    throw validationError({ _: `JSON nests deeper than ${LIMITS.jsonMaxDepth} levels` });
  }
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
