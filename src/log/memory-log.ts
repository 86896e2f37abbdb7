// MemoryLog: the non-durable Log for fast tests — LocalLog's group commit, followers and trim
// running over a MemoryKv, so both logs share one behaviour. Nothing outlives the process.

import { MemoryKv } from '../store/memory-kv.js';
import { LocalLog } from './local-log.js';

/** An in-memory Log: same contract as LocalLog, no durability. Entries survive close()/open()
 * of the same instance. */
export class MemoryLog<C = unknown> extends LocalLog<C> {
  constructor() {
    super({ kv: new MemoryKv() });
  }
}
