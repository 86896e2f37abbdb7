// The generated admin password's file (`admin-password`): kept only while it still works. Once
// the admin's password authenticator has changed (its password set or reset, or it is gone),
// the file is removed. Checked at start and every few seconds while the file exists.

import { rm, stat } from 'node:fs/promises';
import type { Replica } from '../store/replica.js';

/** How often the file's relevance is checked while it exists (ms). */
const CHECK_EVERY_MS = 5000;

export class AdminPasswordFile {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly path: string,
    private readonly replica: Replica,
    private readonly username: string,
  ) {}

  /** Checks now, then every few seconds until the file is gone. */
  async start(onError: (err: unknown) => void): Promise<void> {
    if (!(await this.sweep())) return;
    this.timer = setInterval(() => {
      this.sweep()
        .then((kept) => (kept ? undefined : this.stop()))
        .catch(onError);
    }, CHECK_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Removes the file once the admin's updb authenticator changed; returns whether it is kept. */
  async sweep(): Promise<boolean> {
    if (!(await exists(this.path))) return false;
    const authenticator = await this.replica.findUnique('authenticators', 'username', this.username);
    // Bootstrap writes the authenticator once (createdAt = updatedAt); any password change,
    // reset or deletion moves updatedAt or removes the record.
    if (authenticator && authenticator.method === 'updb' && authenticator.updatedAt === authenticator.createdAt) return true;
    await rm(this.path, { force: true });
    return false;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
