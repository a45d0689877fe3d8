import { requireUser } from '@/server/auth/require-user';
import { scopeFileRoutes } from '@/server/files/scope-routes';
import { otherMethods } from '@/server/http/method-not-allowed';

export const dynamic = 'force-dynamic';

/** GET the team workspace's files (newest first); POST ?name= with the raw bytes uploads one (docs/api.md "Files"). */
const routes = scopeFileRoutes('team');
export const GET = routes.GET;
export const POST = routes.POST;

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST }, requireUser);
