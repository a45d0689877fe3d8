// The summary and the start answer both put the id first (server/batches/tool.ts, summary.ts): read from the start,
// so a result the step events cut short still names its batch.
const BATCH_ID = /^\{\s*"batchId"\s*:\s*"([A-Za-z0-9_-]{1,100})"/;

/**
 * The batch a `batch_task` result names: its result is the batch's summary (or, without waiting, its start) as JSON
 * beginning with its `batchId`. An error or any other text names none. The id is only used in a link's path.
 */
export function batchIdOfResult(tool: string | null | undefined, text: string): string | null {
  return tool === 'batch_task' ? (BATCH_ID.exec(text)?.[1] ?? null) : null;
}
