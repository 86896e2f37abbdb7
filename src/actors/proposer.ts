// Proposes commands: appends them to the log and waits until this node's replica has applied
// them, so the caller reads its own write. Rejections come back as the apply's ApiError.

import type { Command, Op } from '../domain/commands.js';
import { fromWire } from '../errors.js';
import type { Log } from '../log/log.js';
import type { Replica } from '../store/replica.js';

export class Proposer {
  constructor(
    private readonly log: Log<Command>,
    private readonly replica: Replica,
    private readonly nodeId: string,
  ) {}

  /** Appends the ops as one atomic command; resolves once applied here, throws if rejected. */
  async propose(ops: Op[], at: string = new Date().toISOString()): Promise<number> {
    const seq = await this.log.append({ at, origin: this.nodeId, ops });
    const result = await this.replica.waitFor(seq);
    if (!result.ok) throw fromWire(result.error);
    return seq;
  }
}
