import { createInvitationSchema } from '@/lib/schemas/admin';
import { requireAdmin } from '@/server/admin/access';
import { createInvitation, listInvitations } from '@/server/auth/invitations';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { refuseQuery } from '@/server/http/query';

/** The instance's invitations, newest first (never their codes). */
export const GET = route(async (req) => {
  await requireAdmin(req);
  refuseQuery(req);
  return json({ invitations: await listInvitations() });
});

/** Create an invitation; the response is the only time its code and sign-up path are shown. */
export const POST = route(async (req) => {
  const admin = await requireAdmin(req);
  const input = await readBody(req, createInvitationSchema);
  return json(await createInvitation(admin.id, input), { status: 201, headers: { 'cache-control': 'no-store' } });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST }, requireAdmin);
