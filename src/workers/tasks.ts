// The names and payload shapes of worker-pool tasks. Tasks take and return plain data.

export interface HashPasswordTask {
  task: 'hashPassword';
  password: string;
}
export interface HashPasswordResult {
  /** base64 (std) Argon2id hash, 32 bytes. */
  hash: string;
  /** base64 (std) salt, 10 random bytes. */
  salt: string;
}
export interface VerifyPasswordTask {
  task: 'verifyPassword';
  password: string;
  hash: string;
  salt: string;
}
/** Diagnostic: the worker answers with its worker_threads threadId (a number). */
export interface ThreadIdTask {
  task: 'threadId';
}
export type WorkerTask = HashPasswordTask | VerifyPasswordTask | ThreadIdTask;
