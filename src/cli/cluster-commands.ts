// `weft cluster status|remove`: the cluster's members, shard owners and log stream, and the
// removal of a member for good (its shards handed over before it is stopped).

import type { AdminClient } from './admin-client.js';
import { CliError } from './admin-client.js';
import { intFlag, type ParsedArgs } from './cli-args.js';
import { pollUntil } from './poll-until.js';
import { formatTable } from './table.js';

type Output = 'json' | 'table';

const MEMBER_COLUMNS = ['id', 'version', 'ready', 'reason', 'appliedSeq', 'lag', 'shards', 'onlineSince', 'address'];
const STREAM_COLUMNS = ['name', 'firstSeq', 'lastSeq', 'messages', 'bytes', 'replicas', 'leader'];

interface Status {
  clusterName: string | null;
  members: { id: string; shards: number; draining: boolean; reason: string | null }[];
  shards: { count: number; unowned: number };
  stream: Record<string, unknown> | null;
}

export async function clusterCommand(parsed: ParsedArgs, args: string[], api: () => Promise<AdminClient>, out: (text: string) => void, output: Output): Promise<void> {
  const [action, nodeId] = args;
  if (action === 'status' && args.length === 1) return printStatus((await (await api()).call('GET', '/cluster')) as Status, out, output);
  if (action === 'remove' && args.length === 2) return remove(parsed, nodeId!, await api(), out, output);
  throw new CliError('usage: weft cluster status | weft cluster remove <nodeId> [--no-wait] [--timeout seconds]', 2);
}

function printStatus(status: Status, out: (text: string) => void, output: Output): void {
  if (output === 'json') return out(JSON.stringify(status, null, 2));
  const members = status.members.map((m) => ({ ...m, reason: m.draining ? 'DRAINING' : m.reason }));
  const parts = [
    `cluster ${status.clusterName ?? '(embedded node)'}: ${status.members.length} member(s), ${status.shards.count} shards, ${status.shards.unowned} without an owner`,
    formatTable(members, MEMBER_COLUMNS),
  ];
  if (status.stream) parts.push('', formatTable([status.stream], STREAM_COLUMNS));
  out(parts.join('\n'));
}

/** Drains the member, then (unless --no-wait) waits until it owns no shard or has left. */
async function remove(parsed: ParsedArgs, nodeId: string, api: AdminClient, out: (text: string) => void, output: Output): Promise<void> {
  await api.call('POST', `/cluster/members/${encodeURIComponent(nodeId)}/drain`);
  let result = { id: nodeId, draining: true, shards: null as number | null, left: false };
  if (parsed.flags.get('no-wait') !== true) {
    const readMember = async () => ((await api.call('GET', '/cluster')) as Status).members.find((m) => m.id === nodeId);
    const { value: member, done } = await pollUntil(readMember, (m) => !m || m.shards === 0, (intFlag(parsed, 'timeout') ?? 60) * 1000);
    if (!done) throw new CliError(`${nodeId} still owns ${member?.shards} shard(s) (see --timeout)`);
    result = { ...result, shards: member?.shards ?? 0, left: member === undefined };
  }
  if (output === 'json') return out(JSON.stringify(result, null, 2));
  out(formatTable([result], ['id', 'draining', 'shards', 'left']));
  if (!result.left) out(`${nodeId} owns no shard now; stop its process (it leaves the membership when it stops)`);
}
