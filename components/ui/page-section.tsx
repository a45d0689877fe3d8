import type { ReactNode } from 'react';

/**
 * One titled section of a page (Settings, Admin): its h2 names the section for assistive technology
 * (`aria-labelledby`), and the optional description sits right under the title.
 */
export function PageSection({
  id,
  title,
  description,
  children,
}: {
  /** Unique on the page: the heading's id is `${id}-heading`. */
  id: string;
  title: ReactNode;
  description?: ReactNode;
  children: ReactNode;
}) {
  const headingId = `${id}-heading`;
  return (
    <section aria-labelledby={headingId} className="space-y-4">
      <div>
        <h2 id={headingId} className="text-lg font-semibold text-zinc-900 dark:text-zinc-50">
          {title}
        </h2>
        {description ? <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{description}</p> : null}
      </div>
      {children}
    </section>
  );
}
