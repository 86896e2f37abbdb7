// The worker pool: a fixed set of Piscina threads running CPU-heavy tasks (password hashing)
// off the main thread, at a lower CPU priority, with a bounded queue that sheds load as
// SERVER_TOO_MANY_REQUESTS.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { PostureBulkInput, PostureBulkResult } from '../domain/posture/evaluate-bulk.js';
import { ApiError } from '../errors.js';
import type { ThreadScheduling, WorkerPriority } from './thread-priority.js';
import type { ExtendCertificateTask, HashPasswordResult, SignCsrTask, SignedCertificate, WorkerTask } from './tasks.js';

/** Pool sizing. threads defaults to the CPU count (max 8); maxQueue to 1024 waiting tasks;
 * priority (default normal) is the threads' CPU priority, so that their work yields to the event
 * loop (see thread-priority.ts). */
export interface WorkerPoolOptions {
  threads?: number;
  maxQueue?: number;
  priority?: WorkerPriority;
}

/** A snapshot of the pool: live threads, tasks waiting, tasks finished. */
export interface WorkerPoolStats {
  threads: number;
  queueSize: number;
  completed: number;
}

const DEFAULT_MAX_QUEUE = 1024;
const MAX_DEFAULT_THREADS = 8;
const QUEUE_FULL_MESSAGES = new Set(['Task queue is at limit', 'No task queue available and all Workers are busy']);

function workerFilename(): string {
  return fileURLToPath(new URL('./worker.js', import.meta.url));
}

function isQueueFull(err: unknown): boolean {
  return err instanceof Error && QUEUE_FULL_MESSAGES.has(err.message);
}

/** Runs WorkerTasks on worker threads. */
export class WorkerPool {
  private constructor(private readonly piscina: Piscina) {}

  static create(opts: WorkerPoolOptions = {}): WorkerPool {
    const threads = Math.max(1, opts.threads ?? Math.min(availableParallelism(), MAX_DEFAULT_THREADS));
    const piscina = new Piscina({
      filename: workerFilename(),
      minThreads: threads,
      maxThreads: threads,
      maxQueue: opts.maxQueue ?? DEFAULT_MAX_QUEUE,
      workerData: { priority: opts.priority ?? 'normal' },
    });
    return new WorkerPool(piscina);
  }

  /** Runs a task; rejects with ApiError SERVER_TOO_MANY_REQUESTS when the queue is full. */
  async run<T>(task: WorkerTask): Promise<T> {
    try {
      return (await this.piscina.run(task)) as T;
    } catch (err) {
      if (isQueueFull(err)) throw new ApiError('SERVER_TOO_MANY_REQUESTS');
      throw err;
    }
  }

  hashPassword(password: string): Promise<HashPasswordResult> {
    return this.run<HashPasswordResult>({ task: 'hashPassword', password });
  }

  verifyPassword(password: string, hash: string, salt: string): Promise<boolean> {
    return this.run<boolean>({ task: 'verifyPassword', password, hash, salt });
  }

  /** Signs a CSR with the CA (see SignCsrTask); a refused request answers `{ok: false}`. */
  signCsr(request: Omit<SignCsrTask, 'task'>): Promise<SignedCertificate> {
    return this.run<SignedCertificate>({ task: 'signCsr', ...request });
  }

  /** Signs a CSR's key for an existing certificate's subject (see ExtendCertificateTask). */
  extendCertificate(request: Omit<ExtendCertificateTask, 'task'>): Promise<SignedCertificate> {
    return this.run<SignedCertificate>({ task: 'extendCertificate', ...request });
  }

  /** The scheduling one of the pool's threads has (see thread-priority.ts). */
  threadScheduling(): Promise<ThreadScheduling> {
    return this.run<ThreadScheduling>({ task: 'threadScheduling' });
  }

  /** Bulk posture re-evaluation: the identities with sessions that no longer pass. */
  evaluatePostureBulk(input: PostureBulkInput): Promise<PostureBulkResult[]> {
    return this.run<PostureBulkResult[]>({ task: 'evaluatePostureBulk', input });
  }

  stats(): WorkerPoolStats {
    return {
      threads: this.piscina.threads.length,
      queueSize: this.piscina.queueSize,
      completed: this.piscina.completed,
    };
  }

  close(): Promise<void> {
    return this.piscina.close();
  }
}
