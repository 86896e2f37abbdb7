// Node operations reached over the bus (queries whose op starts with `ops.`, delegated by the
// query handler): data integrity, snapshots and identity traces. Node-local, like reads.

import { randomUUID } from 'node:crypto';
import { parseTraceRequest } from '../domain/trace-spec.js';
import { unknownOperation } from '../protocol/v1/message-fields.js';
import { ApiError } from '../errors.js';
import type { Replica } from '../store/replica.js';
import type { IntegrityRunner } from './integrity-runner.js';
import type { SnapshotTaker } from './snapshot-taker.js';
import type { TraceRegistry } from './trace-registry.js';

export interface OpsHandlerDeps {
  replica: Replica;
  integrity: IntegrityRunner;
  snapshots: SnapshotTaker;
  traces: TraceRegistry;
}

export class OpsHandler {
  constructor(private readonly deps: OpsHandlerDeps) {}

  async handle(msg: Record<string, unknown>): Promise<unknown> {
    switch (msg.op) {
      case 'ops.integrityStart':
        this.deps.integrity.start(msg.fix === true);
        return {};
      case 'ops.integrityResults':
        return this.deps.integrity.results();
      case 'ops.snapshot':
        return this.deps.snapshots.take();
      case 'ops.trace':
        return this.trace(String(msg.identityId ?? ''), msg.spec);
      default:
        throw unknownOperation('ops', msg.op);
    }
  }

  /** Upstream's traceDetail: `{enabled, traceId, until}` when enabled, `{enabled: false}` when not. */
  private async trace(identityId: string, body: unknown): Promise<Record<string, unknown>> {
    if (!(await this.deps.replica.get('identities', identityId))) throw new ApiError('NOT_FOUND');
    const request = parseTraceRequest(body);
    if (!request.enabled) {
      this.deps.traces.disable(identityId);
      return { enabled: false };
    }
    const spec = this.deps.traces.enable(identityId, {
      durationMs: request.durationMs,
      traceId: request.traceId ?? randomUUID(),
      channels: request.channels,
    });
    return { enabled: true, traceId: spec.traceId, until: new Date(spec.until).toISOString() };
  }
}
