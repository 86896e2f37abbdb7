// Presentation of access-model records: services' permissions for the viewer, and the
// `*RolesDisplay` lists of policies (`@id` shown as `@name`, unknown ids omitted).

import type { Entity } from '../domain/commands.js';
import { isKind, resourceOf, type Kind } from '../domain/registry.js';
import { roleFields } from '../domain/resource.js';
import type { AccessReader } from '../store/access-reader.js';
import type { Replica } from '../store/replica.js';
import type { Decorator, Decorators, Wire } from './present.js';

/** Services' permissions for the viewer; each policy kind's `*RolesDisplay` lists. */
export function accessDecorators(reader: AccessReader): Decorators {
  return {
    services: async (wire, record, { viewer }) => {
      wire.permissions = viewer.identityId ? await reader.permissions(viewer.identityId, record.id) : ['Invalid'];
      wire.postureQueries ??= [];
      wire.config ??= {};
    },
    'edge-router-policies': rolesDisplay('edge-router-policies'),
    'service-edge-router-policies': rolesDisplay('service-edge-router-policies'),
    'service-policies': rolesDisplay('service-policies'),
  };
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
