import 'server-only';
import type { AssemblyChange, AssemblyDescriptor } from '@/lib/types/assembly';
import { canonicalJson, fingerprinted } from './fingerprint';

const isPlainObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);

/**
 * The fields that differ between two descriptors (the app version left out), by dotted path ("model", "limits.maxTurns"). Objects are
 * compared field by field; arrays (tools, approvalTools, middleware) and other values are compared whole, so a
 * changed tool list is one change with both lists. Sorted by path, so the same two descriptors always give the
 * same list.
 */
export function assemblyChanges(before: AssemblyDescriptor, after: AssemblyDescriptor): AssemblyChange[] {
  const changes: AssemblyChange[] = [];
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (isPlainObject(a) && isPlainObject(b)) {
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
      for (const key of keys) walk(a[key], b[key], path ? `${path}.${key}` : key);
      return;
    }
    if (canonicalJson(a ?? null) !== canonicalJson(b ?? null)) changes.push({ field: path, before: a ?? null, after: b ?? null });
  };
  // The app version is not part of the setup (fingerprint.ts): records made before that rule differ in it alone.
  walk(fingerprinted(before), fingerprinted(after), '');
  return changes;
}
