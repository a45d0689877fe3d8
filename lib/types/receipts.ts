/**
 * A run's receipts ledger: every tool call the run made, numbered r1, r2, … in the order its results were recorded.
 * Agents cite them as `[r2 calculator]`; a citation is *resolved* when a receipt with that id and tool exists —
 * evidence that the call happened, not that the claim made about it is true.
 */
export type Receipt = { id: string; tool: string; status: 'ok' | 'error' };

export type CitationCheck = { id: string; tool: string; resolved: boolean };

/** GET /api/v1/runs/:id/receipts: the run's ledger, in order. */
export type ApiRunReceipts = { runId: string; receipts: Receipt[] };
