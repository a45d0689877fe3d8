import type { GetServerSideProps } from 'next';
import Head from 'next/head';
import { AuthCard } from '@/components/auth/auth-card';
import { SignInForm } from '@/components/auth/sign-in-form';
import { publicPageServices } from '@/lib/public-pages/services';
import { cookieHeaders, privatePage, queryText, takeAuthFlash } from '@/lib/public-pages/request';
import { AUTH_MESSAGES, safeCallbackPath } from '@/lib/schemas/auth';
import type { AuthFormState } from '@/lib/types/auth-forms';

// No JavaScript on this page (ADR 062): the form posts to /sign-in/submit.
export const config = { unstable_runtimeJS: false };

type Props = { callbackPath: string | null; state: AuthFormState; signUpLink: boolean };

export const getServerSideProps: GetServerSideProps<Props> = async ({ req, res, query }) => {
  // `callbackUrl` is what the app sends; `from` is accepted too. Only same-origin paths survive.
  const callbackPath = safeCallbackPath(queryText(query.callbackUrl) ?? queryText(query.from));
  const services = publicPageServices();
  if (await services.signedIn(cookieHeaders(req))) return { redirect: { destination: callbackPath ?? '/agents', permanent: false } };
  privatePage(res);
  let state = takeAuthFlash(req, res, 'sign-in');
  // next-auth's own HTTP flow (POST /api/auth/callback/credentials) lands here with ?error=CredentialsSignin&code=….
  if (!state.message && queryText(query.error) === 'CredentialsSignin') {
    state = {
      message: queryText(query.code) === 'rate_limited' ? 'Too many failed sign-ins. Try again in a minute.' : AUTH_MESSAGES.invalidCredentials,
    };
  }
  return { props: { callbackPath, state, signUpLink: await services.signUpEnabled() } };
};

export default function SignInPage(props: Props) {
  return (
    <AuthCard>
      <Head>
        <title>Sign in · Ensemble</title>
      </Head>
      <SignInForm {...props} />
    </AuthCard>
  );
}
