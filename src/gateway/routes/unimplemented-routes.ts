// Client-API operations the upstream spec lists but upstream's controller never registers a
// handler for: its generated server answers them 501 with a JSON string naming the operation,
// and so does Weft (service writes belong to the management API; enrollment challenges are not
// implemented upstream).

import type Router from '@koa/router';
import { JSON_TYPE } from '../envelope.js';
import { requireCaller } from '../middleware/session.js';

/** [method, path, upstream's operation name, whether the spec requires a session first]. */
const UNIMPLEMENTED: readonly [method: 'put' | 'patch' | 'delete' | 'post', path: string, operation: string, secured: boolean][] = [
  ['put', '/services/:id', 'service.UpdateService', true],
  ['patch', '/services/:id', 'service.PatchService', true],
  ['delete', '/services/:id', 'service.DeleteService', true],
  ['post', '/enroll/challenge', 'enroll.EnrollmentChallenge', false],
];

export function addUnimplementedClientRoutes(router: Router): void {
  for (const [method, path, operation, secured] of UNIMPLEMENTED) {
    router[method](path, (ctx) => {
      // The generated server authenticates a secured operation before it looks for a handler.
      if (secured) requireCaller(ctx);
      ctx.status = 501;
      ctx.set('content-type', JSON_TYPE);
      ctx.body = JSON.stringify(`operation ${operation} has not yet been implemented`);
    });
  }
}
