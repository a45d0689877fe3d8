// Node ESM resolve hook: next-auth imports "next/server" and "next/headers" without an extension, which Next's
// bundler accepts but plain Node does not (the next package has no "exports" map). Tests load next-auth natively.
export async function resolve(specifier, context, nextResolve) {
  if (/^next\/(server|headers|navigation)$/.test(specifier)) return nextResolve(`${specifier}.js`, context);
  return nextResolve(specifier, context);
}
