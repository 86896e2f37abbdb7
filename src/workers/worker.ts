// The Piscina worker entry: runs one task per call, dispatching on task.task.
import { threadId } from 'node:worker_threads';
import { hashPassword, verifyPassword } from './hash-password.js';
import type { HashPasswordResult, WorkerTask } from './tasks.js';

/** Runs one worker task and returns its plain-data result. */
export default async function runTask(task: WorkerTask): Promise<HashPasswordResult | boolean | number> {
  switch (task.task) {
    case 'hashPassword':
      return hashPassword(task.password);
    case 'verifyPassword':
      return verifyPassword(task.password, task.hash, task.salt);
    case 'threadId':
      return threadId;
    default:
      return unknownTask(task);
  }
}

function unknownTask(task: never): never {
  throw new Error(`unknown worker task: ${String((task as { task?: unknown }).task)}`);
}
