// Presentation of access-model records: services' permissions for the viewer, and the
// `*RolesDisplay` lists of policies (`@id` shown as `@name`, unknown ids omitted).

import type { Entity } from '../domain/commands.js';
import { isKind, resourceOf, type Kind } from '../domain/registry.js';
import { roleFields } from '../domain/resource.js';
import type { AccessReader } from '../store/access-reader.js';
import type { Replica } from '../store/replica.js';
import type { Decorator, Presenter, Wire } from './present.js';

export function registerAccessDecorators(presenter: Presenter, reader: AccessReader): void {
  presenter.decorate('services', async (wire, record, { viewer }) => {
    wire.permissions = viewer.identityId ? await reader.permissions(viewer.identityId, record.id) : ['Invalid'];
    wire.postureQueries ??= [];
    wire.config ??= {};
  });
  for (const kind of ['edge-router-policies', 'service-edge-router-policies', 'service-policies'] as const) {
    presenter.decorate(kind, rolesDisplay(kind));
  }
}

function rolesDisplay(kind: Kind): Decorator {
  const fields = roleFields(resourceOf(kind));
  return async (wire: Wire, record: Entity, { replica }) => {
    for (const [field, target] of fields) {
      wire[`${field}Display`] = await display((record[field] as string[]) ?? [], target, replica);
    }
    wire.isSystem ??= false;
  };
}

async function display(roles: string[], target: string, replica: Replica): Promise<{ role: string; name: string }[]> {
  const out: { role: string; name: string }[] = [];
  for (const role of roles) {
    if (!role.startsWith('@')) {
      out.push({ role, name: role });
      continue;
    }
    const entity = isKind(target) ? await replica.get(target, role.slice(1)) : undefined;
    if (entity) out.push({ role, name: `@${String(entity.name)}` });
  }
  return out;
}
