// The deliberate 403s (BEHAVIOR.md "Where Weft deliberately differs"): a valid non-admin session
// deleting an API session or a posture check gets 403 (upstream 401). No session stays 401;
// admins fall through to the derived delete routes, so this is mounted before them.

import type Router from '@koa/router';
import { ApiError } from '../../errors.js';
import { requireCaller } from '../middleware/session.js';

export function addForbiddenDeletes(router: Router): void {
  for (const kind of ['api-sessions', 'posture-checks']) {
    router.delete(`/${kind}/:id`, async (ctx, next) => {
      if (!requireCaller(ctx).isAdmin) throw new ApiError('FORBIDDEN');
      await next();
    });
  }
}
