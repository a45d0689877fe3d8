// Vitest stands in for the 'server-only' guard: tests run outside React's server graph.
export {};
