// The Piscina worker entry: runs one task per call, dispatching on task.task. On load the thread
// takes the pool's priority (workerData.priority), so its CPU work yields to request serving.
import { threadId } from 'node:worker_threads';
import { workerData } from 'piscina';
import type { PostureBulkResult } from '../domain/posture/evaluate-bulk.js';
import { evaluatePostureBulk } from './evaluate-posture-bulk.js';
import { hashPassword, verifyPassword } from './hash-password.js';
import { extendCertificate, signCsr } from './sign-csr.js';
import type { HashPasswordResult, SignedCertificate, WorkerTask } from './tasks.js';
import { ownThreadScheduling, setOwnThreadPriority, type ThreadScheduling, type WorkerPriority } from './thread-priority.js';

setOwnThreadPriority((workerData as { priority?: WorkerPriority } | undefined)?.priority ?? 'normal');

/** Runs one worker task and returns its plain-data result. */
export default async function runTask(task: WorkerTask): Promise<HashPasswordResult | SignedCertificate | PostureBulkResult[] | boolean | number | ThreadScheduling> {
  switch (task.task) {
    case 'hashPassword':
      return hashPassword(task.password);
    case 'verifyPassword':
      return verifyPassword(task.password, task.hash, task.salt);
    case 'threadId':
      return threadId;
    case 'threadScheduling':
      return ownThreadScheduling();
    case 'evaluatePostureBulk':
      return evaluatePostureBulk(task.input);
    case 'signCsr':
      return signCsr(task);
    case 'extendCertificate':
      return extendCertificate(task);
    default:
      return unknownTask(task);
  }
}

function unknownTask(task: never): never {
  throw new Error(`unknown worker task: ${String((task as { task?: unknown }).task)}`);
}
