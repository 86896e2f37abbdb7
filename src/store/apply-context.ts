// The state one command's apply shares between its steps (apply.ts and the integrity repairs it
// runs). A type only, so the steps import it without importing each other.

import type { Transaction } from './transaction.js';

/** What every step of one command's apply shares: its transaction, its time and its counts. */
export interface ApplyContext {
  tx: Transaction;
  /** The command's decided time (used for updatedAt of entities changed as a side effect). */
  at: string;
  bump: (kind: string, delta: number) => void;
  /** The kind's entity count as this command sees it (the replica's count plus bumps so far). */
  count?: (kind: string) => Promise<number>;
}
