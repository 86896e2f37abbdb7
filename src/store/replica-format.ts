// The replica's data format (`m␀format`, see keys.ts): checked when the replica opens, and an
// older replica (a data dir or a snapshot from before format 2) upgraded in place.

import {
  FORMAT_KEY,
  LEGACY_ENTITY_LINKS,
  REPLICA_FORMAT,
  entityPoliciesKey,
  joinPolicyIds,
  linkParts,
} from './keys.js';
import type { KvOp, KvStore } from './kv.js';

/** Legacy keys converted per store batch (a batch always ends with a whole entity's list). */
const UPGRADE_CHUNK = 10_000;

/**
 * Makes sure kv holds the current format. A store without a format key is format 1 (or new):
 * its per-link reverse keys (`b␀kind␀id␀policyKind␀policyId`) become one policy list per
 * entity and policy kind. Each batch converts whole lists and deletes the keys it converted, so
 * an upgrade cut short resumes where it stopped; the format key is written last. A format this
 * code does not know (a newer node wrote it) stops the start with an error.
 */
export async function ensureFormat(kv: KvStore): Promise<void> {
  const format = await kv.get(FORMAT_KEY);
  if (format === String(REPLICA_FORMAT)) return;
  if (format !== undefined) {
    throw new Error(
      `the replica holds data format ${format}, but this version of Weft reads format ${REPLICA_FORMAT}: ` +
        'start the version that wrote it, or restore a snapshot taken by this version',
    );
  }
  await upgradeEntityLinks(kv);
  await kv.batch([{ type: 'put', key: FORMAT_KEY, value: String(REPLICA_FORMAT) }], { sync: true });
}

/** Format 1 → 2: the legacy reverse links, streamed in key order (grouped by entity and kind). */
async function upgradeEntityLinks(kv: KvStore): Promise<void> {
  let ops: KvOp[] = [];
  let list: { key: string; ids: string[] } | undefined;
  const endList = () => {
    if (list) ops.push({ type: 'put', key: list.key, value: joinPolicyIds(list.ids) });
    list = undefined;
  };
  for await (const legacy of kv.keys(LEGACY_ENTITY_LINKS)) {
    const [targetKind, entityId, policyKind, policyId] = linkParts(legacy);
    const key = policyId === undefined ? undefined : entityPoliciesKey(targetKind, entityId, policyKind);
    if (list?.key !== key) {
      endList();
      if (ops.length >= UPGRADE_CHUNK) ops = await flush(kv, ops);
      if (key !== undefined) list = { key, ids: [] };
    }
    ops.push({ type: 'del', key: legacy });
    // A malformed key is only dropped: the integrity check finds and rebuilds a missing link.
    if (list && policyId !== undefined) list.ids.push(policyId);
  }
  endList();
  await flush(kv, ops);
}

async function flush(kv: KvStore, ops: KvOp[]): Promise<KvOp[]> {
  if (ops.length > 0) await kv.batch(ops);
  return [];
}
