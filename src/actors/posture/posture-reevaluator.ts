// Node-level re-evaluation after model changes (posture checks, service policies, identities,
// services, API-session MFA): finds the sessions that may be affected, evaluates them in bulk on
// the worker pool with the actors' posture snapshots, and has failing identities' actors revoke.

import type { Entity, Op } from '../../domain/commands.js';
import type { BulkIdentity, BulkSession, CheckRecord } from '../../domain/posture/index.js';
import { recordRange } from '../../store/keys.js';
import type { AppliedEvent, Replica } from '../../store/replica.js';
import type { WorkerPool } from '../../workers/pool.js';
import { PostureReads, type PostureSnapshot } from '../../query/posture-reads.js';
import type { PostureRuntime } from './posture-runtime.js';

export interface ReevaluatorOptions {
  replica: Replica;
  pool: WorkerPool;
  runtime: PostureRuntime;
  onError?: (err: unknown) => void;
  /** Changes arriving within this window are handled together (ms). */
  debounceMs?: number;
  /** Identities per worker task. */
  batchSize?: number;
  /** Every session is re-evaluated this often (upstream enforces every 5 s); 0 = never. */
  sweepEveryMs?: number;
}

/** What changed since the last run, by kind. */
interface Changes {
  checks: Set<string>;
  policies: Set<string>;
  deletedPolicies: Set<string>;
  identities: Set<string>;
  services: Set<string>;
  apiSessions: Set<string>;
  forgotten: Set<string>;
  /** Every session (periodic sweep). */
  all: boolean;
}

const noChanges = (): Changes => ({
  checks: new Set(),
  policies: new Set(),
  deletedPolicies: new Set(),
  identities: new Set(),
  services: new Set(),
  apiSessions: new Set(),
  forgotten: new Set(),
  all: false,
});

const CONCURRENCY = 32;

export class PostureReevaluator {
  private changes = noChanges();
  private timer?: NodeJS.Timeout;
  private sweeper?: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();
  private readonly reads: PostureReads;
  private readonly listener = (event: AppliedEvent) => this.collect(event);

  constructor(private readonly opts: ReevaluatorOptions) {
    this.reads = new PostureReads(opts.replica);
  }

  start(): void {
    this.opts.replica.events.on('applied', this.listener);
    const every = this.opts.sweepEveryMs ?? 30_000;
    if (every > 0) {
      this.sweeper = setInterval(() => this.sweep(), every);
      this.sweeper.unref();
    }
  }

  /** Queues a re-evaluation of every session (MFA timeouts of sessions no timer watches, e.g.
   * after a restart, when volatile posture data was lost as upstream loses it). */
  sweep(): void {
    this.changes.all = true;
    if (!this.timer) this.timer = setTimeout(() => this.schedule(), 0);
  }

  async stop(): Promise<void> {
    this.opts.replica.events.off('applied', this.listener);
    if (this.sweeper) clearInterval(this.sweeper);
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Resolves once every change seen so far has been handled (tests, benchmarks). */
  async idle(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.schedule();
    }
    await this.running;
  }

  private collect(event: AppliedEvent): void {
    if (!event.result.ok) return;
    let relevant = false;
    for (const op of event.command.ops) relevant = this.note(op) || relevant;
    if (relevant && !this.timer) this.timer = setTimeout(() => this.schedule(), this.opts.debounceMs ?? 25);
  }

  private note(op: Op): boolean {
    const c = this.changes;
    if (op.op !== 'create' && op.op !== 'update' && op.op !== 'set' && op.op !== 'delete') return false;
    const id = op.op === 'create' || op.op === 'update' ? op.record.id : op.id;
    const isDelete = op.op === 'delete';
    switch (op.kind) {
      case 'posture-checks':
        if (!isDelete) c.checks.add(id);
        return !isDelete;
      case 'service-policies':
        (isDelete ? c.deletedPolicies : c.policies).add(id);
        return true;
      case 'identities':
        (isDelete ? c.forgotten : c.identities).add(id);
        return true;
      case 'services':
        if (!isDelete) c.services.add(id);
        return !isDelete;
      case 'api-sessions':
        if (op.op !== 'set' || !('mfaPassedAt' in op.fields)) return false;
        c.apiSessions.add(id);
        return true;
      default:
        return false;
    }
  }

  /** Queues a run over the changes collected so far (runs never overlap). */
  private schedule(): void {
    this.timer = undefined;
    const changes = this.changes;
    this.changes = noChanges();
    this.running = this.running.then(() => this.handle(changes)).catch((err) => this.opts.onError?.(err));
  }

  private async handle(changes: Changes): Promise<void> {
    const tell = this.opts.runtime.tell;
    if (!tell) return;
    await eachLimited([...changes.forgotten], (id) => tell(id, { op: 'postureForget' }).catch(() => undefined));
    const byIdentity = await this.candidates(changes);
    const ids = [...byIdentity.keys()];
    const batch = this.opts.batchSize ?? 500;
    for (let i = 0; i < ids.length; i += batch) {
      await this.evaluateBatch(ids.slice(i, i + batch), byIdentity);
    }
  }

  /** Sessions that may fail now, grouped by identity. */
  private async candidates(changes: Changes): Promise<Map<string, Entity[]>> {
    const { reader } = this.reads;
    const sessions = new Map<string, Entity>();
    const add = (list: Entity[]) => list.forEach((s) => sessions.set(s.id, s));
    const policies = new Set(changes.policies);
    for (const checkId of changes.checks) {
      for (const policyId of await reader.policiesOf('posture-checks', checkId, 'service-policies')) policies.add(policyId);
    }
    for (const policyId of [...policies, ...changes.deletedPolicies]) add(await this.reads.records('sessions', 'servicePolicies', policyId));
    for (const policyId of policies) {
      const members = new Set(await reader.membersOf('service-policies', policyId, 'identities'));
      if (members.size === 0) continue;
      for (const serviceId of await reader.membersOf('service-policies', policyId, 'services')) {
        add((await this.reads.records('sessions', 'serviceId', serviceId)).filter((s) => members.has(String(s.identityId))));
      }
    }
    for (const id of changes.identities) add(await this.reads.records('sessions', 'identityId', id));
    for (const id of changes.services) add(await this.reads.records('sessions', 'serviceId', id));
    for (const id of changes.apiSessions) add(await this.reads.records('sessions', 'apiSessionId', id));
    if (changes.all) {
      for await (const [, raw] of this.opts.replica.kv.entries(recordRange('sessions'))) add([JSON.parse(raw) as Entity]);
    }
    const out = new Map<string, Entity[]>();
    for (const session of sessions.values()) {
      const identityId = String(session.identityId);
      if (changes.forgotten.has(identityId)) continue;
      out.set(identityId, [...(out.get(identityId) ?? []), session]);
    }
    return out;
  }

  /** Snapshots from the actors, one worker task, then revocation by the failing identities' actors. */
  private async evaluateBatch(identityIds: string[], byIdentity: Map<string, Entity[]>): Promise<void> {
    const tell = this.opts.runtime.tell!;
    const checks: Record<string, CheckRecord> = {};
    const identities: BulkIdentity[] = [];
    await eachLimited(identityIds, async (identityId) => {
      const snapshot = (await tell(identityId, { op: 'postureSnapshot' }).catch(() => undefined)) as PostureSnapshot | undefined;
      if (!snapshot) return;
      const sessions: BulkSession[] = [];
      for (const session of byIdentity.get(identityId) ?? []) {
        const type = session.type === 'Bind' ? 'Bind' : 'Dial';
        const policies = await this.reads.policyChecks(identityId, String(session.serviceId), type);
        for (const policy of policies) for (const check of policy.checks) checks[check.id] = check;
        sessions.push({
          sessionId: session.id,
          apiSessionId: String(session.apiSessionId),
          policies: policies.map((p) => ({ policyId: p.policyId, policyName: p.policyName, policyType: p.policyType, checkIds: p.checks.map((c) => c.id) })),
        });
      }
      identities.push({ identityId, data: snapshot.data, sessions });
    });
    if (identities.length === 0) return;
    const failing = await this.opts.pool.evaluatePostureBulk({ now: this.opts.runtime.clock.now(), checks, identities });
    await eachLimited(failing, (result) => tell(result.identityId, { op: 'postureReevaluate' }).catch((err) => this.opts.onError?.(err)));
  }
}

/** Runs `fn` over `items` with at most CONCURRENCY in flight. */
async function eachLimited<T>(items: T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}
