// Where `weft login` keeps its session: the API URL, the CA file path and the session token,
// in ~/.config/weft/session.json (or WEFT_SESSION_FILE), owner-only. Never the password.

import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError } from './admin-client.js';

export interface SavedSession {
  /** `https://host:port/edge/management/v1` */
  url: string;
  /** Absolute path of the CA PEM to trust, or null for the system's CAs. */
  ca: string | null;
  token: string;
  username: string;
  savedAt: string;
}

export function defaultSessionFile(): string {
  return join(homedir(), '.config', 'weft', 'session.json');
}

/** Writes the session with mode 0600 (directory 0700). */
export async function saveSession(file: string, session: SavedSession): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
}

export async function loadSession(file: string): Promise<SavedSession> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new CliError(`not logged in (no session in ${file}): run \`weft login --url https://host:1280 --ca ca.pem --username u --password p\``);
  }
  const session = JSON.parse(text) as Partial<SavedSession>;
  if (typeof session.url !== 'string' || typeof session.token !== 'string') throw new CliError(`the session file ${file} is damaged: run \`weft login\` again`);
  return session as SavedSession;
}

export async function removeSession(file: string): Promise<void> {
  await rm(file, { force: true });
}
