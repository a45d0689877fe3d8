import type { GetServerSideProps } from 'next';
import Head from 'next/head';
import { ButtonLink } from '@/components/ui/button-link';
import { publicPageServices } from '@/lib/public-pages/services';
import { cookieHeaders, privatePage } from '@/lib/public-pages/request';

// No JavaScript on this page (ADR 062): it is HTML, the stylesheet and the theme script.
export const config = { unstable_runtimeJS: false };

type Props = { signUp: boolean };

/**
 * Signed-in people go straight to their agents; everyone else sees what Ensemble is and how to get in (account
 * creation only while sign-up is open: an invitation link leads to the form on its own).
 */
export const getServerSideProps: GetServerSideProps<Props> = async ({ req, res }) => {
  const services = publicPageServices();
  if (await services.signedIn(cookieHeaders(req))) return { redirect: { destination: '/agents', permanent: false } };
  privatePage(res);
  return { props: { signUp: await services.signUpEnabled() } };
};

export default function HomePage({ signUp }: Props) {
  return (
    <main className="mx-auto flex min-h-screen w-full max-w-2xl flex-col justify-center px-4 py-16 sm:px-6">
      <Head>
        <title>Ensemble</title>
      </Head>
      <p className="text-sm font-semibold tracking-wide text-indigo-600 uppercase dark:text-indigo-400">Ensemble</p>
      <h1 className="mt-2 text-3xl font-semibold tracking-tight text-zinc-900 sm:text-4xl dark:text-zinc-50">
        Your Custom Agents, working together as a team.
      </h1>
      <p className="mt-4 text-base text-zinc-600 dark:text-zinc-400">
        Keep a catalog of agents with their own instructions, models and tools, chat with each of them, and let
        them hand work to one another. Self-hosted: your data stays on your server.
      </p>
      <div className="mt-8 flex flex-wrap gap-3">
        <ButtonLink href="/sign-in">Sign in</ButtonLink>
        {signUp ? (
          <ButtonLink href="/sign-up" variant="secondary">
            Create account
          </ButtonLink>
        ) : null}
      </div>
    </main>
  );
}
