/** Types of scripts/bundle-size.mjs for its test (the project compiles no JavaScript). */
export type PageSize = {
  route: string;
  chunks: number;
  raw: number;
  gzip: number;
  budgetKb: number | undefined;
  goalKb: number | undefined;
  over: boolean;
  overGoal: boolean;
};
/** gzip kB by route; `default` for a page without an entry of its own. */
export type KbTable = Readonly<Record<string, number>> & { readonly default?: number };
export declare const GOALS_KB: KbTable & { readonly default: number };
export declare const BUDGETS_KB: KbTable & { readonly default: number };
export declare function measurePages(distDir: string, options?: { budgets?: KbTable; goals?: KbTable; pagesDir?: string }): PageSize[];
export declare function formatTable(rows: readonly PageSize[]): string;
export declare function strictRequested(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): boolean;
