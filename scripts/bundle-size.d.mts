/** Types of scripts/bundle-size.mjs for its test (the project compiles no JavaScript). */
export type PageSize = { route: string; chunks: number; raw: number; gzip: number; targetKb: number | undefined; over: boolean };
export declare const TARGETS_KB: Readonly<Record<string, number>>;
export declare function measurePages(distDir: string, targetsKb?: Readonly<Record<string, number>>): PageSize[];
export declare function formatTable(rows: readonly PageSize[]): string;
