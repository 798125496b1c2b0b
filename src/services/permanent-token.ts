// account/permanent_token (reference §2.3 and §4.9: "for pre-approved apps only"): exchanges the
// caller's user token for one that never expires. An application is pre-approved by the operator
// (`permanent_tokens`, POST /admin/app/update/:id or `npm run admin -- app update ID
// --permanent-tokens true`); any other is refused with a 403.
import { apiError } from '../errors.js';
import type { ApplicationDoc, UserDoc } from '../store/documents.js';
import type { ServiceContext } from './context.js';
import { issuePermanentUserToken } from './tokens.js';

export async function permanentToken(ctx: ServiceContext, app: ApplicationDoc, user: UserDoc) {
  // Read afresh, not from the token cache's copy: a withdrawn approval holds at once.
  const current = await ctx.store.applications.get(app._id);
  if (!current?.permanent_tokens) throw apiError('access_denied', 'This application is not approved for permanent tokens');
  return issuePermanentUserToken(ctx, current, user);
}
