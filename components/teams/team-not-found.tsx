import { ButtonLink } from '@/components/ui/button-link';
import { EmptyState } from '@/components/ui/misc';

/** What a team's pages show once it answers 404: deleted (or never the person's), with the way back. */
export function TeamNotFound() {
  return (
    <EmptyState title="Team not found">
      <p>It may have been deleted.</p>
      <ButtonLink href="/teams" variant="secondary" size="sm" className="mt-3">
        Back to teams
      </ButtonLink>
    </EmptyState>
  );
}
