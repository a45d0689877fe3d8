import 'server-only';
import packageJson from '@/package.json';

// Tests change the version to prove it changes the fingerprint; kept on globalThis so every copy of this module
// (route bundles, instrumentation) sees the same value.
const g = globalThis as unknown as { __ensembleAppVersionOverride?: string };

/** The running app's version (package.json), recorded in every assembly descriptor. */
export const appVersion = (): string => g.__ensembleAppVersionOverride ?? packageJson.version;

/** Tests only: pretend the app runs another version (undefined restores package.json's). */
export function setAppVersionForTests(version: string | undefined): void {
  g.__ensembleAppVersionOverride = version;
}
