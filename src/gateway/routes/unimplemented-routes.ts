// Client-API operations the upstream spec lists but upstream's controller never registers a
// handler for: its generated server answers them 501 with a JSON string naming the operation,
// and so does Weft (service writes belong to the management API; enrollment challenges are not
// implemented upstream).

import { JSON_TYPE } from '../envelope.js';
import type { HandRoute, Method } from './route-table.js';

/** [method, path, upstream's operation name, its operationId and summary, whether the spec
 * requires a session first]. */
const UNIMPLEMENTED: readonly [method: Method, path: string, operation: string, operationId: string, summary: string, secured: boolean][] = [
  ['put', '/services/:id', 'service.UpdateService', 'updateService', 'Update all fields on a service', true],
  ['patch', '/services/:id', 'service.PatchService', 'patchService', 'Update the supplied fields on a service', true],
  ['delete', '/services/:id', 'service.DeleteService', 'deleteService', 'Delete a service', true],
  ['post', '/enroll/challenge', 'enroll.EnrollmentChallenge', 'enrollmentChallenge', 'Allows verification of a controller or cluster of controllers as being the valid target for enrollment.', false],
];

/** Upstream's bodies of these operations (never read: the answer is 501). */
const BODIES: Record<string, Record<string, unknown>> = {
  'put /services/:id': { type: 'object', additionalProperties: true, description: 'A service update (served by the management API)' },
  'patch /services/:id': { type: 'object', additionalProperties: true, description: 'A service patch (served by the management API)' },
  'post /enroll/challenge': { type: 'object', properties: { nonce: { type: 'string' }, keyId: { type: 'string' } }, required: ['nonce', 'keyId'] },
};

export const UNIMPLEMENTED_CLIENT_ROUTES: readonly HandRoute[] = UNIMPLEMENTED.map(([method, path, operation, operationId, summary, secured]): HandRoute => ({
  method, path, operationId, summary,
  // The generated server authenticates a secured operation before it looks for a handler.
  access: secured ? 'authenticated' : 'none',
  ...(BODIES[`${method} ${path}`] ? { body: BODIES[`${method} ${path}`] } : {}),
  ok: { status: 501, description: 'Not implemented (as upstream): a JSON string naming the operation' },
  handler: (ctx) => {
    ctx.status = 501;
    ctx.set('content-type', JSON_TYPE);
    ctx.body = JSON.stringify(`operation ${operation} has not yet been implemented`);
  },
}));
