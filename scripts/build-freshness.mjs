// Whether a production build is older than the sources it compiles: the crash test (scripts/crash/server.ts) and the
// demo (scripts/demo.mjs) rebuild only then.
import fs from 'node:fs';
import path from 'node:path';

/** Everything `next build` compiles, relative to the repository root. */
export const BUILD_INPUTS = ['app', 'components', 'lib', 'server', 'public', 'instrumentation.ts', 'proxy.ts', 'next.config.mjs', 'postcss.config.mjs', 'tsconfig.json', 'package-lock.json'];

/** The newest modification time of a file, or of anything below a directory; 0 when it does not exist. */
function newestMtime(file) {
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs.readdirSync(file).reduce((max, name) => Math.max(max, newestMtime(path.join(file, name))), stat.mtimeMs);
}

/** When the build in `distDir` (relative to `root`) was made, or null when there is none. */
export function builtAt(root, distDir) {
  const buildId = path.join(root, distDir, 'BUILD_ID');
  return fs.existsSync(buildId) ? fs.statSync(buildId).mtimeMs : null;
}

/** True when the build in `distDir` exists and no build input changed after it. */
export function buildIsCurrent(root, distDir) {
  const at = builtAt(root, distDir);
  return at !== null && BUILD_INPUTS.every((input) => newestMtime(path.join(root, input)) <= at);
}
