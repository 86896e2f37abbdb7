#!/usr/bin/env node
// The test command: makes sure a real nats-server is available (installing Debian's package
// when missing), then runs every compiled test file with node's test runner.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function findNats() {
  const candidates = [process.env.NATS_SERVER_BIN, '/usr/bin/nats-server', '/usr/sbin/nats-server', '/usr/local/bin/nats-server'];
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir) candidates.push(join(dir, 'nats-server'));
  return candidates.find((c) => c && existsSync(c));
}

function ensureNats() {
  let bin = findNats();
  if (bin) return bin;
  console.log('nats-server not found: installing the Debian package nats-server');
  const sudo = process.getuid && process.getuid() === 0 ? [] : ['sudo'];
  const run = (args) => execFileSync(sudo.length ? 'sudo' : args[0], sudo.length ? args : args.slice(1), { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  run(['apt-get', 'update']);
  run(['apt-get', 'install', '-y', 'nats-server']);
  bin = findNats();
  if (!bin) throw new Error('nats-server is still missing after apt-get install nats-server');
  return bin;
}

function testFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...testFiles(path));
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const natsBin = ensureNats();
const only = process.argv.slice(2);
const files = only.length > 0 ? only : testFiles('dist/test');
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], {
  stdio: 'inherit',
  env: { ...process.env, NATS_SERVER_BIN: natsBin },
});
process.exit(result.status ?? 1);
