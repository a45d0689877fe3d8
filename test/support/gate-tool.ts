import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { registerToolGroup } from '@/server/agents/tools/registry';

/** The tool group name to give an agent (written straight to its row) so it can call `hold`. */
export const GATE_GROUP = 'test_gate';

/**
 * A tool `hold` that ignores its abort signal and returns only when the test opens the gate: a stand-in for a
 * provider or tool call that keeps running after a cancel or a timeout. It counts how many calls execute at once.
 */
export function registerGateTool() {
  let open: () => void = () => {};
  let opened = Promise.resolve();
  const gate = {
    entered: 0,
    executing: 0,
    maxExecuting: 0,
    /** Close the gate: calls from now on wait for open(). */
    close() {
      opened = new Promise<void>((resolve) => {
        open = resolve;
      });
    },
    open: () => open(),
  };
  gate.close();
  registerToolGroup(GATE_GROUP, () => [
    tool(
      async () => {
        gate.entered += 1;
        gate.executing += 1;
        gate.maxExecuting = Math.max(gate.maxExecuting, gate.executing);
        try {
          await opened;
          return 'released';
        } finally {
          gate.executing -= 1;
        }
      },
      { name: 'hold', description: 'Wait until the test releases it (ignores aborts).', schema: z.object({}) },
    ),
  ]);
  return gate;
}
