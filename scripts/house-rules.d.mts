/** Types of scripts/house-rules.mjs for its test (the project compiles no JavaScript). */
export declare const ARCHITECTURE_MAX_LINES: number;
export declare const SERVER_ONLY_EXEMPT: Readonly<Record<string, string>>;
export declare function firstStatement(text: string): string;
export declare function serverOnlyProblems(root: string, exempt?: Readonly<Record<string, string>>): string[];
export declare function rawHtmlProblems(root: string): string[];
export declare function motionProblems(root: string): string[];
export declare function architecturePageProblems(root: string, max?: number): string[];
export declare function houseRuleProblems(root: string): string[];
