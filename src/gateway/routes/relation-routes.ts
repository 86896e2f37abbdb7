// Related lists (`/<parent>/{id}/<child>`) and role-attribute lists, derived from the
// relation table and the selectable resources. Admin only, as upstream.

import type Router from '@koa/router';
import { RELATIONS } from '../../domain/relations.js';
import { RESOURCES } from '../../domain/registry.js';
import { requireAdmin } from '../middleware/session.js';
import { sendList } from '../list-answer.js';
import type { NodeClient } from '../node-client.js';
import { listParams, viewer } from './resource-routes.js';

export function addRelationRoutes(router: Router, node: NodeClient): void {
  for (const { parent, child } of RELATIONS) {
    router.get(`/${parent}/:id/${child}`, async (ctx) => {
      requireAdmin(ctx);
      await sendList(ctx, node, {
        op: 'related',
        parent: { kind: parent, id: ctx.params.id },
        kind: child,
        params: listParams(ctx),
        viewer: viewer(ctx),
      });
    });
  }
}

/** `/identity-role-attributes`, `/service-role-attributes`, ... for every selectable kind. */
export function addRoleAttributeRoutes(router: Router, node: NodeClient): void {
  for (const decl of RESOURCES.filter((r) => r.selectable)) {
    router.get(`/${decl.entity}-role-attributes`, async (ctx) => {
      requireAdmin(ctx);
      await sendList(ctx, node, { op: 'roleAttributes', kind: decl.kind, params: listParams(ctx) });
    });
  }
}
