import { NextResponse } from 'next/server';
import { getDb } from '@/server/db';

export const dynamic = 'force-dynamic';

/** Liveness and database check; no authentication. */
export function GET() {
  const started = performance.now();
  getDb().$client.prepare('select 1').get();
  return NextResponse.json({ ok: true, db: 'ok', dbMs: Math.round((performance.now() - started) * 100) / 100 });
}
