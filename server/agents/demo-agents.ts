import 'server-only';
import { NEW_AGENT_DEFAULTS, type AgentCreate } from '@/lib/schemas/agent';
import type { Agent } from '@/server/db/schema';
import { createAgent, findAgentByName } from './catalog';

/** A demo agent: its own name, description and instructions, every other setting the new-agent form's default. */
const demoAgent = (name: string, description: string, instructions: string[]): AgentCreate => ({ ...NEW_AGENT_DEFAULTS, name, description, instructions: instructions.join('\n') });

/**
 * The three example agents of the demo account. They use the embedded `scripted` model (the default), so they answer
 * offline and deterministically (try `/reply Hello` or `/call calculator {"expression":"6*7"}` in a chat).
 */
export const DEMO_AGENTS: readonly AgentCreate[] = [
  demoAgent(
    'Researcher',
    'Gathers facts, sources and open questions on a topic and reports them as a short, structured brief.',
    [
      'You are a careful researcher.',
      'Break the request into questions, gather what is known, and separate facts from assumptions.',
      'Report findings as a short bulleted brief with the open questions at the end.',
      'When the request is ambiguous, ask one clarifying question before starting.',
    ],
  ),
  demoAgent(
    'Reviewer',
    'Checks drafts and plans for errors, gaps and unclear wording, and lists concrete fixes by priority.',
    [
      'You are a constructive reviewer.',
      'Read the work closely and check it against the stated goal and requirements.',
      'List the problems you find in order of importance, each with a concrete suggested fix.',
      'Say plainly when something is good enough to ship.',
    ],
  ),
  demoAgent(
    'Writer',
    'Turns notes, findings and feedback into clear, well-organised prose for the intended reader.',
    [
      'You are a clear, concise writer.',
      'Ask who the reader is if that is not stated, then write for them: short sentences, plain words, a logical order.',
      'Use headings and lists where they help scanning, and keep every claim traceable to the material you were given.',
    ],
  ),
];

/**
 * Give the owner the demo agents. Idempotent by name: an agent the owner already has under that name
 * (compared without case) is kept as it is, so re-running the seed never duplicates or overwrites.
 */
export async function seedDemoAgents(ownerId: string): Promise<Agent[]> {
  const seeded: Agent[] = [];
  // One after another: each create checks the owner's names and quota in its own transaction.
  for (const def of DEMO_AGENTS) seeded.push((await findAgentByName(ownerId, def.name)) ?? (await createAgent(ownerId, def)));
  return seeded;
}
