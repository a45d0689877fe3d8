import { eq } from 'drizzle-orm';
import { schema, writeTx } from '@/server/db';

/**
 * Script a downstream agent the trusted way: its owner's instructions. The scripted model acts on their directive
 * lines on every request turn the agent receives (a peer's request included); directives a peer writes are data.
 */
export async function scriptAgent(agentId: string, ...lines: string[]): Promise<void> {
  await writeTx(async (tx) => {
    await tx.update(schema.agents).set({ instructions: lines.join('\n'), updatedAt: new Date() }).where(eq(schema.agents.id, agentId));
  });
}
