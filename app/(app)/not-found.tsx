import { ButtonLink } from '@/components/ui/button-link';

/** Inside the signed-in layout, which already holds the page's one <main>. */
export default function NotFound() {
  return (
    <section aria-labelledby="not-found-heading" className="flex max-w-xl flex-col items-start py-10">
      <p className="text-sm font-semibold text-indigo-600 dark:text-indigo-400">404</p>
      <h1 id="not-found-heading" className="mt-2 text-2xl font-semibold text-zinc-900 dark:text-zinc-50">
        Page not found
      </h1>
      <p className="mt-2 text-sm text-zinc-600 dark:text-zinc-400">This page doesn&apos;t exist, or it belongs to someone else.</p>
      <ButtonLink href="/" variant="secondary" className="mt-6">
        Go home
      </ButtonLink>
    </section>
  );
}
