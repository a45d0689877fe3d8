import { sql } from 'drizzle-orm';
import { NextResponse } from 'next/server';
import { rows } from '@/server/db/statement';
import { noCredentials, otherMethods } from '@/server/http/method-not-allowed';

export const dynamic = 'force-dynamic';

/** Liveness and database check; no authentication. */
export async function GET() {
  const started = performance.now();
  await rows(sql`select 1 as "one"`);
  return NextResponse.json({ ok: true, db: 'ok', dbMs: Math.round((performance.now() - started) * 100) / 100 });
}

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, noCredentials);
