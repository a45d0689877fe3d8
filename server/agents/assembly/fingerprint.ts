import 'server-only';
import crypto from 'node:crypto';
import type { AssemblyDescriptor } from '@/lib/types/assembly';

export const sha256Hex = (text: string): string => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * JSON with every object's keys sorted (recursively) and no whitespace: the same value always gives the same text,
 * whatever order its keys were written in. Arrays keep their order (the descriptor sorts the ones that are sets).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v);
  }
  return out;
}

/**
 * The assembly's fingerprint: SHA-256 (hex) of its canonical JSON without `appVersion`. The version is recorded for
 * reading, but an upgrade that changes nothing an agent runs with is not a new setup (seed 003); what an upgrade
 * does change (framework text, guards) shows in the fields that hold it.
 */
export const fingerprintOf = (descriptor: AssemblyDescriptor): string => sha256Hex(canonicalJson(fingerprinted(descriptor)));

/** The descriptor as the fingerprint and the change list see it. */
export function fingerprinted(descriptor: AssemblyDescriptor): Omit<AssemblyDescriptor, 'appVersion'> {
  const { appVersion: _version, ...rest } = descriptor;
  return rest;
}
