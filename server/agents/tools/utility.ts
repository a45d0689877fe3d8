import 'server-only';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { evaluateArithmetic, formatNumber } from './arithmetic';

/** The harmless built-in `utility` group: the current time and a calculator. */
export function utilityTools() {
  const currentTime = tool(
    ({ timeZone }) => {
      const now = new Date();
      if (!timeZone) return now.toISOString();
      try {
        const local = new Intl.DateTimeFormat('en-US', { dateStyle: 'full', timeStyle: 'long', timeZone }).format(now);
        return `${now.toISOString()} (${local})`;
      } catch {
        throw new Error(`Unknown time zone "${timeZone}"`);
      }
    },
    {
      name: 'current_time',
      description: 'The current date and time (ISO 8601, UTC), optionally also in an IANA time zone.',
      schema: z.object({ timeZone: z.string().max(64).optional().describe('IANA time zone, e.g. Europe/Paris') }),
    },
  );

  const calculator = tool(({ expression }) => formatNumber(evaluateArithmetic(expression)), {
    name: 'calculator',
    description: 'Evaluate an arithmetic expression with + - * / % ^ and parentheses, e.g. "(2 + 3) * 4".',
    schema: z.object({ expression: z.string().min(1).max(500).describe('The arithmetic expression') }),
  });

  return [currentTime, calculator];
}
