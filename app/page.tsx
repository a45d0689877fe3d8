import Link from 'next/link';
import { redirect } from 'next/navigation';
import { currentUser } from '@/server/auth/require-user';

export const dynamic = 'force-dynamic';

/** Signed-in people go straight to their agents; everyone else sees what Ensemble is and how to get in. */
export default async function HomePage() {
  if (await currentUser()) redirect('/agents');
  return (
    <main className="mx-auto flex min-h-screen w-full max-w-2xl flex-col justify-center px-4 py-16 sm:px-6">
      <p className="text-sm font-semibold tracking-wide text-indigo-600 uppercase dark:text-indigo-400">Ensemble</p>
      <h1 className="mt-2 text-3xl font-semibold tracking-tight text-zinc-900 sm:text-4xl dark:text-zinc-50">
        Your Custom Agents, working together as a team.
      </h1>
      <p className="mt-4 text-base text-zinc-600 dark:text-zinc-400">
        Keep a catalog of agents with their own instructions, models and tools, chat with each of them, and let
        them hand work to one another. Self-hosted: your data stays on your server.
      </p>
      <div className="mt-8 flex flex-wrap gap-3">
        <Link
          href="/sign-in"
          className="inline-flex h-10 items-center rounded-md bg-indigo-600 px-4 text-sm font-medium text-white hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:bg-indigo-500 dark:hover:bg-indigo-400"
        >
          Sign in
        </Link>
        <Link
          href="/sign-up"
          className="inline-flex h-10 items-center rounded-md border border-zinc-300 bg-white px-4 text-sm font-medium text-zinc-900 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800"
        >
          Create account
        </Link>
      </div>
    </main>
  );
}
