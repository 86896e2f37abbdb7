#!/usr/bin/env node
// `weft`, the admin command line: logs in once (session kept owner-only), then lists, reads,
// creates and deletes resources, asks for policy advice, takes snapshots, runs integrity checks and
// shows or shrinks the cluster.

import { isEntryPoint, loadAdminCliInvocation } from '../config.js';
import { CliError } from './admin-client.js';
import { parseArgs } from './cli-args.js';
import { runCommand, type CliIo } from './commands.js';
import { defaultSessionFile } from './session-file.js';

export const USAGE = `Usage: weft <command> [options]

Commands:
  login --url https://host:1280 [--ca ca.pem] --username u (--password p | --password-stdin)
                                     log in; the session is kept in ~/.config/weft/session.json
                                     (mode 0600) or in $WEFT_SESSION_FILE
  logout                             end the session and forget it
  list <resource> [--filter '<ZitiQL>'] [--limit n] [--offset n]
  get <resource> <id>
  create <resource> (--data '<json>' | --file <path>)
  delete <resource> <id>
  policy-advice <identityId> <serviceId>
  snapshot                           write a database snapshot on the node (at most one per 30 s)
  integrity check|fix|results [--no-wait] [--timeout seconds]
  cluster status                     members (version, readiness, applied sequence, lag, shards),
                                     shard owners and the cluster log's stream
  cluster remove <nodeId> [--no-wait] [--timeout seconds]
                                     hand the node's shards to the others (it then reports not
                                     ready); stop its process afterwards

Options:
  --output json|table (-o)           JSON (default) or an aligned table of the main columns
  --help (-h)

<resource> is the API's URL segment: identities, services, service-policies, edge-routers, ...
Exit codes: 0 done, 1 the call failed (message on stderr), 2 bad usage.`;

/** Runs one invocation and returns its exit code; never exits the process itself. */
export async function runWeft(args: string[], io: CliIo): Promise<number> {
  try {
    const parsed = parseArgs(args);
    const command = parsed.positionals[0];
    if (parsed.flags.get('help') === true || command === undefined || command === 'help') {
      io.out(USAGE);
      return command === undefined && parsed.flags.get('help') !== true ? 2 : 0;
    }
    await runCommand(command, parsed, io);
    return 0;
  } catch (err) {
    if (err instanceof CliError) {
      io.err(`weft: ${err.message}`);
      return err.exitCode;
    }
    io.err(`weft: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk: string) => (text += chunk));
    process.stdin.on('end', () => resolve(text));
    process.stdin.on('error', reject);
  });
}

if (isEntryPoint(import.meta.url)) {
  const invocation = loadAdminCliInvocation();
  const io: CliIo = {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    readStdin,
    sessionFile: invocation.sessionFile ?? defaultSessionFile(),
  };
  runWeft(invocation.args, io).then((code) => {
    process.exitCode = code;
  });
}
