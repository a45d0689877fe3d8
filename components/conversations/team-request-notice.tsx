import Link from 'next/link';
import type { WaitingTeamRequest } from '@/lib/types/conversation';
import { textLink } from '@/components/ui/button-variants';
import { cn } from '@/components/ui/cn';

/**
 * In a team member's conversation, while a team request waits on it (a question or an approval): where to answer.
 * Only the team's page answers it, so the request's result goes back to the team (the server refuses it here).
 */
export function TeamRequestNotice({ request, agentName }: { request: WaitingTeamRequest; agentName: string }) {
  return (
    <section
      aria-labelledby="team-request-heading"
      className="rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-800 dark:bg-amber-950/40"
    >
      <h2 id="team-request-heading" className="font-semibold text-amber-900 dark:text-amber-100">
        A team request waits here
      </h2>
      <p className="mt-1 break-words text-amber-950 [overflow-wrap:anywhere] dark:text-amber-50">
        {agentName} is working on a request from the team “{request.teamName}” and needs your answer. Answer it there, so
        the result goes back to the team.
      </p>
      <Link
        href={`/teams/${encodeURIComponent(request.teamId)}`}
        className={cn(textLink, 'mt-2 inline-block')}
      >
        Answer on the team’s page
      </Link>
    </section>
  );
}
