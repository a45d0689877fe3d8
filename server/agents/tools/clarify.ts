import 'server-only';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { LIMITS } from '@/lib/limits';
import { CLARIFICATION_TOOL } from '../scripted-model';

export { CLARIFICATION_TOOL };

/**
 * `ask_clarification { question }`: the call ends the member's turn. The graph routes to END after the tools step
 * that ran it; the run finishes 'interrupted' with the question, and the answer arrives later as a new human
 * message (kind 'clarification_answer'), not as a graph resume.
 */
export function clarifyTools() {
  const askClarification = tool(() => 'Your question was passed to the person. Stop here; their answer will arrive as a new message.', {
    name: CLARIFICATION_TOOL,
    description: 'Ask the person a clarifying question when you cannot continue without their answer. Ends your turn.',
    schema: z.object({ question: z.string().min(1).max(LIMITS.answer.maxChars).describe('The question for the person') }),
  });
  return [askClarification];
}
