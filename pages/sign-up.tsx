import type { GetServerSideProps } from 'next';
import Head from 'next/head';
import { AuthCard, AuthSwitchLink } from '@/components/auth/auth-card';
import { SignUpForm } from '@/components/auth/sign-up-form';
import { Alert } from '@/components/ui/misc';
import { publicPageServices } from '@/lib/public-pages/services';
import { cookieHeaders, privatePage, queryText, takeAuthFlash } from '@/lib/public-pages/request';
import { AUTH_MESSAGES } from '@/lib/schemas/auth';
import type { AuthFormState } from '@/lib/types/auth-forms';

// No JavaScript on this page (ADR 062): the form posts to /sign-up/submit.
export const config = { unstable_runtimeJS: false };

const SPENT_LINK_BUT_OPEN =
  'This invitation link is not valid any more (it was used, revoked or has expired), but sign-up is open on this server: you can create an account anyway.';

type Props =
  | { closed: true; message: string }
  | { closed: false; invite: string | null; notice: string | null; state: AuthFormState };

/**
 * The form when sign-up is open to this visitor: before the first account (it becomes the admin), with
 * ALLOW_SIGNUP=true, or through an invitation link (/sign-up?invite=CODE). Otherwise it says plainly that sign-up
 * is closed and how to get in. The route handler decides again; this page only avoids showing a form that can't work.
 */
export const getServerSideProps: GetServerSideProps<Props> = async ({ req, res, query }) => {
  const services = publicPageServices();
  if (await services.signedIn(cookieHeaders(req))) return { redirect: { destination: '/agents', permanent: false } };
  privatePage(res);
  const invite = queryText(query.invite)?.trim() || null;
  const state = takeAuthFlash(req, res, 'sign-up');
  const access = await services.signUpAccess(invite);
  // A spent link while sign-up is open anyway: say so, and offer the ordinary form.
  if (access === 'closed' && invite && (await services.signUpAccess(null)) === 'open') {
    return { props: { closed: false, invite: null, notice: SPENT_LINK_BUT_OPEN, state } };
  }
  if (access === 'closed') {
    return { props: { closed: true, message: invite ? AUTH_MESSAGES.invitationInvalid : AUTH_MESSAGES.signUpDisabled } };
  }
  const notice =
    access === 'invited'
      ? 'You were invited to this server. The link works once: it is used up when you create your account.'
      : (await services.hasAnyUser())
        ? null
        : 'This server has no accounts yet: the first one becomes its admin.';
  return { props: { closed: false, invite: access === 'invited' ? invite : null, notice, state } };
};

export default function SignUpPage(props: Props) {
  return (
    <AuthCard>
      <Head>
        <title>Create account · Ensemble</title>
      </Head>
      {props.closed ? (
        <div className="space-y-4">
          <h1 className="text-xl font-semibold text-zinc-900 dark:text-zinc-50">Create account</h1>
          <Alert tone="info">{props.message}</Alert>
          <AuthSwitchLink to="sign-in" />
        </div>
      ) : (
        <SignUpForm invite={props.invite} notice={props.notice ?? undefined} state={props.state} />
      )}
    </AuthCard>
  );
}
