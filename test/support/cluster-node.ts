// Test support: one Weft node process of a test cluster, on fixed loopback ports chosen up
// front and its own data dir, so it can be stopped, killed and started again in place.

import { join } from 'node:path';
import type { Agent } from 'undici';
import { MAIN_JS, nodeEnv } from './cli-node.js';
import { readFrom, sizeOf, spawnLogged, tailOf, type LoggedProcess } from './logged-process.js';
import { ApiClient } from './test-node.js';

const START_TIMEOUT_MS = 60_000;

/** How a start ended: serving, or the process exited first (with what it printed). */
export type StartOutcome =
  | { listening: true; line: Record<string, unknown> }
  | { listening: false; code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

export class ClusterNode {
  /** The parsed "listening" line of the current run. */
  listening?: Record<string, unknown>;
  readonly outPath: string;
  readonly errPath: string;
  private run?: LoggedProcess;

  constructor(
    readonly name: string,
    readonly port: number,
    readonly grpcPort: number,
    readonly dataDir: string,
    logDir: string,
    private readonly env: Record<string, string>,
    private readonly dispatcher: () => Agent,
  ) {
    this.outPath = join(logDir, 'stdout.log');
    this.errPath = join(logDir, 'stderr.log');
  }

  /** https://127.0.0.1:<port> */
  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** <data>/pki/ca.pem (as the listening line names it). */
  get caPath(): string {
    return String(this.listening?.ca ?? join(this.dataDir, 'pki', 'ca.pem'));
  }

  /** The management API of this node, trusting the cluster CA only. */
  get mgmt(): ApiClient {
    return new ApiClient(`${this.url}/edge/management/v1`, this.dispatcher());
  }

  /** The client API of this node. */
  get client(): ApiClient {
    return new ApiClient(`${this.url}/edge/client/v1`, this.dispatcher());
  }

  isRunning(): boolean {
    return this.run?.isRunning() ?? false;
  }

  /** Starts the process and resolves once it logs "listening"; throws (with its logs) otherwise. */
  async start(): Promise<void> {
    const outcome = await this.launch();
    if (!outcome.listening) {
      throw new Error(
        `node ${this.name} exited before listening (code ${outcome.code}, signal ${outcome.signal})\n` +
          `--- stdout ---\n${tailOf(this.outPath)}\n--- stderr ---\n${tailOf(this.errPath)}`,
      );
    }
  }

  /** Starts the process; resolves to how the start ended (for tests of refused starts). */
  async launch(timeoutMs = START_TIMEOUT_MS): Promise<StartOutcome> {
    if (this.isRunning()) throw new Error(`node ${this.name} is already running`);
    const outFrom = sizeOf(this.outPath);
    const errFrom = sizeOf(this.errPath);
    const env = nodeEnv(this.dataDir, {
      ...this.env,
      WEFT_LISTEN: `127.0.0.1:${this.port}`,
      WEFT_GRPC_LISTEN: `127.0.0.1:${this.grpcPort}`,
      WEFT_LOG_LEVEL: this.env.WEFT_LOG_LEVEL ?? 'info',
    });
    const run = spawnLogged(process.execPath, [MAIN_JS], env, this.outPath, this.errPath);
    this.run = run;
    this.listening = undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    void run.exited.then((e) => (exit = e));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = listeningLine(readFrom(this.outPath, outFrom));
      if (line) {
        this.listening = line;
        return { listening: true, line };
      }
      if (exit) {
        return { listening: false, ...exit, stdout: readFrom(this.outPath, outFrom), stderr: readFrom(this.errPath, errFrom) };
      }
      if (Date.now() > deadline) {
        await run.kill();
        throw new Error(`node ${this.name} did not log "listening" within ${timeoutMs} ms\n--- stdout ---\n${tailOf(this.outPath)}\n--- stderr ---\n${tailOf(this.errPath)}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** SIGTERM (a clean stop); resolves to the exit code. */
  async stop(): Promise<number | null> {
    return (await this.run?.stop('SIGTERM', 30_000)) ?? null;
  }

  /** kill -9. */
  async kill(): Promise<void> {
    await this.run?.kill();
  }

  /** A clean stop, then a start on the same data dir and ports. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }
}

function listeningLine(stdout: string): Record<string, unknown> | undefined {
  for (const line of stdout.split('\n')) {
    if (!line.includes('"msg":"listening"')) continue;
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      if (parsed.msg === 'listening') return parsed;
    } catch {
      // a partial line: read again
    }
  }
  return undefined;
}
