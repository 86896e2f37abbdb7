// Drafts a generic write without proposing it: runs the EntityWriter against a proposer that
// only records the ops, so an actor can add its own ops to the same atomic command.

import type { Op } from '../domain/commands.js';
import type { Replica } from '../store/replica.js';
import { EntityWriter } from './entity-writer.js';
import type { Proposer } from './proposer.js';

/** The ops a write would have proposed, with the time it decided. */
export interface DraftedWrite {
  ops: Op[];
  at: string;
}

/** Runs `write` with a writer whose proposals are captured instead of appended to the log. */
export async function draftWrite(replica: Replica, write: (writer: EntityWriter) => Promise<unknown>): Promise<DraftedWrite> {
  let drafted: DraftedWrite | undefined;
  const recorder = {
    async propose(ops: Op[], at: string = new Date().toISOString()): Promise<number> {
      drafted = { ops, at };
      return 0;
    },
  };
  await write(new EntityWriter(replica, recorder as unknown as Proposer));
  if (!drafted) throw new Error('the drafted write proposed nothing');
  return drafted;
}
