/** Types of scripts/build-freshness.mjs for the TypeScript scripts that use it (the project compiles no JavaScript). */
export declare const BUILD_INPUTS: readonly string[];
export declare function builtAt(root: string, distDir: string): number | null;
export declare function buildIsCurrent(root: string, distDir: string): boolean;
