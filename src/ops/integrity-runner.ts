// Runs the data-integrity check (and fix) in the background, one run at a time, and keeps the
// last run's results for GET /database/data-integrity-results. The fix proposes repair
// commands through the log, so every node applies the same (re-validated) repairs.

import type { Op, Repair } from '../domain/commands.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../logger.js';
import { checkIntegrity, type IntegrityProblem } from '../store/integrity.js';
import { APPLIED_SEQ_KEY } from '../store/keys.js';
import { openSnapshot } from '../store/kv-snapshot.js';
import type { Replica } from '../store/replica.js';

/** One problem as the API reports it. */
export interface IntegrityResult {
  description: string;
  fixed: boolean;
}

/** The upstream dataIntegrityCheckDetails document. */
export interface IntegrityDetails {
  inProgress: boolean;
  fixingErrors: boolean;
  tooManyErrors: boolean;
  startTime: string | null;
  endTime: string | null;
  error: string | null;
  results: IntegrityResult[];
}

export interface IntegrityRunnerOptions {
  replica: Replica;
  /** Proposes the repairs as one command (the node's Proposer). */
  proposer: { propose(ops: Op[]): Promise<unknown> };
  /** Takes a backup before a fix writes anything (upstream snapshots the DB first). */
  backup?: () => Promise<unknown>;
  log?: Logger;
  /** Results kept (upstream: 1000); problems past it are still fixed. */
  maxResults?: number;
}

/** Repairs proposed together in one command. */
const BATCH = 200;

interface Pending {
  repair: Repair;
  result?: IntegrityResult;
}

export class IntegrityRunner {
  private details: IntegrityDetails = {
    inProgress: false, fixingErrors: false, tooManyErrors: false, startTime: null, endTime: null, error: null, results: [],
  };
  private run?: Promise<void>;
  private stopping = false;

  constructor(private readonly opts: IntegrityRunnerOptions) {}

  /** Starts a check (or a fix) in the background; 429 RATE_LIMITED while one runs. */
  start(fix: boolean): void {
    if (this.details.inProgress || this.stopping) throw new ApiError('RATE_LIMITED', { retryAfterSeconds: 1 });
    this.details = {
      inProgress: true, fixingErrors: fix, tooManyErrors: false, startTime: new Date().toISOString(), endTime: null, error: null, results: [],
    };
    const details = this.details;
    this.run = this.execute(details, fix)
      .catch((err: unknown) => {
        details.error = err instanceof Error ? err.message : String(err);
        this.opts.log?.warn('data integrity run failed', { error: err });
      })
      .finally(() => {
        details.inProgress = false;
        details.endTime = new Date().toISOString();
        this.opts.log?.info('data integrity run finished', { fix, problems: details.results.length, tooManyErrors: details.tooManyErrors });
      });
  }

  /** A copy of the current (or last) run's details. */
  results(): IntegrityDetails {
    return { ...this.details, results: this.details.results.map((r) => ({ ...r })) };
  }

  /** Stops a run under way at its next step and waits for it. */
  async close(): Promise<void> {
    this.stopping = true;
    await this.run;
  }

  private async execute(details: IntegrityDetails, fix: boolean): Promise<void> {
    const { replica } = this.opts;
    const max = this.opts.maxResults ?? 1000;
    if (fix && this.opts.backup) await this.opts.backup();
    const view = openSnapshot(replica.kv);
    let pending: Pending[] = [];
    try {
      const viewSeq = Number((await view.get(APPLIED_SEQ_KEY)) ?? 0);
      await checkIntegrity(view, {
        // In-memory counts describe the view only while nothing newer has been applied.
        counts: (kind) => (replica.appliedSeq === viewSeq ? replica.count(kind) : undefined),
        aborted: () => this.stopping,
        onProblem: async (problem: IntegrityProblem) => {
          let result: IntegrityResult | undefined;
          if (details.results.length < max) {
            result = { description: problem.description, fixed: false };
            details.results.push(result);
          } else {
            details.tooManyErrors = true;
          }
          if (!fix || !problem.repair) return;
          pending.push({ repair: problem.repair, result });
          if (pending.length >= BATCH) {
            await this.repair(pending);
            pending = [];
          }
        },
      });
      if (pending.length > 0) await this.repair(pending);
    } finally {
      await view.close();
    }
  }

  /** Proposes repairs: key repairs together (they cannot fail), each reference repair alone
   * (a cascade delete may be refused); marks what was applied as fixed. */
  private async repair(items: Pending[]): Promise<void> {
    const keyRepairs = items.filter((i) => i.repair.action === 'put' || i.repair.action === 'del' || i.repair.action === 'recount');
    const others = items.filter((i) => !keyRepairs.includes(i));
    if (keyRepairs.length > 0 && !(await this.propose(keyRepairs))) {
      for (const item of keyRepairs) await this.propose([item]);
    }
    for (const item of others) await this.propose([item]);
  }

  private async propose(items: Pending[]): Promise<boolean> {
    const ops: Op[] = items.map((i) => ({ op: 'repair', repair: i.repair }));
    try {
      await this.opts.proposer.propose(ops);
    } catch (err) {
      if (items.length === 1) this.opts.log?.warn('integrity repair refused', { repair: items[0]!.repair.action, error: err instanceof Error ? err.message : String(err) });
      return false;
    }
    for (const item of items) if (item.result) item.result.fixed = true;
    return true;
  }
}
