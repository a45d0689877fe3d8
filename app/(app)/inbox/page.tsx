import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { InboxList } from '@/components/inbox/inbox-list';
import { currentUser } from '@/server/auth/require-user';

export const metadata: Metadata = { title: 'Inbox' };

/** What waits for the person across chats and teams (ADR 056); the list reads and follows it in the browser. */
export default async function InboxPage() {
  if (!(await currentUser())) redirect('/sign-in');
  return <InboxList />;
}
