import { cn } from '@/components/ui/cn';

/** The name a person gave at sign-up, or null when they gave none (stored as ''; spaces alone are no name). */
export const displayName = (name: string | null | undefined): string | null => name?.trim() || null;

type Props = {
  name: string | null | undefined;
  email: string;
  /** The one header copy that carries the test ids "user-name" and "user-email" (the browser tests read them). */
  testId?: boolean;
  className?: string;
};

/**
 * Who is signed in: the person's name with their email under it, smaller, or the email alone when there is no name.
 * Each line truncates with an ellipsis inside the width its container leaves, so an 80-character, CJK or emoji name
 * never widens the header; the title gives the whole of both on hover.
 */
export function AccountLabel({ name, email, testId, className }: Props) {
  const shown = displayName(name);
  const emailLine = (
    // Smaller under a name, in the label's own colour: the header is translucent, and a lighter grey fell under 4.5:1
    // over a chat bubble scrolled beneath it.
    <span className={cn('block truncate', shown && 'text-xs')} data-testid={testId ? 'user-email' : undefined}>
      {email}
    </span>
  );
  return (
    <span className={cn('flex min-w-0 flex-col text-sm leading-tight text-zinc-600 dark:text-zinc-400', className)} title={shown ? `${shown}\n${email}` : email}>
      {shown ? (
        <span className="block truncate font-medium text-zinc-800 dark:text-zinc-200" data-testid={testId ? 'user-name' : undefined}>
          {shown}
        </span>
      ) : null}
      {emailLine}
    </span>
  );
}
