import { zodResolver } from '@hookform/resolvers/zod';
import { agentCreateSchema } from '@/lib/schemas/agent';

/** Loaded on first use by the agent form (lazyResolver): zod stays out of the agent pages' first load. */
export const agentResolver = zodResolver(agentCreateSchema);
