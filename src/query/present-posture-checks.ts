// Presentation of posture checks: the detail shape of each check type (upstream
// postureCheck*Detail) — common fields plus only the fields of the record's own type.

import type { Entity } from '../domain/commands.js';
import { MFA_DEFAULTS, TYPED_FIELDS, isPostureCheckType, type PostureCheckType } from '../domain/posture/index.js';
import type { Wire } from './present.js';

const ALL_TYPED_FIELDS = new Set(Object.values(TYPED_FIELDS).flat());

/** What a typed field reads as when the stored record lacks it. */
const FALLBACK: Partial<Record<PostureCheckType, Record<string, unknown>>> = {
  OS: { operatingSystems: [] },
  MAC: { macAddresses: [] },
  DOMAIN: { domains: [] },
  PROCESS_MULTI: { semantic: 'AllOf', processes: [] },
  MFA: MFA_DEFAULTS,
};

/** The posture-checks decorator for the Presenter. */
export async function presentPostureCheck(wire: Wire, record: Entity): Promise<void> {
  wire.roleAttributes ??= [];
  wire.version ??= 1;
  const typeId = record.typeId;
  if (!isPostureCheckType(typeId)) return;
  const own = TYPED_FIELDS[typeId];
  for (const field of ALL_TYPED_FIELDS) if (!own.includes(field)) delete wire[field];
  for (const [field, value] of Object.entries(FALLBACK[typeId] ?? {})) wire[field] ??= structuredClone(value);
}
