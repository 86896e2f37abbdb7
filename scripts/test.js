#!/usr/bin/env node
// The test command: makes sure a real nats-server is available (installing Debian's package
// when missing), runs every compiled test file with node's test runner, then the API tests
// once more with every test node on the NATS bus and once in cluster mode, and prints the
// combined count.

import { execFileSync, spawn } from 'node:child_process';
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

/** Runs node's test runner on files, streaming its output; resolves to its exit code and counts. */
function runTests(files, extraEnv) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--test', '--test-concurrency=2', ...files], {
      stdio: ['inherit', 'pipe', 'inherit'],
      env: { ...process.env, ...extraEnv },
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      process.stdout.write(chunk);
      out = (out + chunk).slice(-65536); // the summary is at the end
    });
    child.once('close', (code) => {
      const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(out)?.[1] ?? 0);
      resolve({ status: code ?? 1, passed: count('pass'), failed: count('fail') });
    });
  });
}

const natsBin = ensureNats();
const only = process.argv.slice(2);
const files = only.length > 0 ? only : testFiles('dist/test');
const env = { NATS_SERVER_BIN: natsBin };
const runs = [await runTests(files, env)];
if (only.length === 0) {
  // The whole API suite again, every test node on its own real nats-server (the shared suites
  // in memory-bus/nats-bus.test.js already run over both buses).
  const api = files.filter((f) => f.includes('/api/') && !/\/(memory|nats)-bus\.test\.js$/.test(f));
  console.log('\nAPI tests again over the NATS bus (WEFT_TEST_BUS=nats)\n');
  runs.push(await runTests(api, { ...env, WEFT_TEST_BUS: 'nats' }));
  // And once more with every test node a one-node cluster (JetStream log, shards, read barrier).
  console.log('\nAPI tests again in cluster mode (WEFT_TEST_BUS=cluster)\n');
  runs.push(await runTests(api, { ...env, WEFT_TEST_BUS: 'cluster' }));
}
const passed = runs.reduce((n, r) => n + r.passed, 0);
const failed = runs.reduce((n, r) => n + r.failed, 0);
console.log(`\ntests: ${passed} passed, ${failed} failed`);
process.exit(runs.every((r) => r.status === 0) ? 0 : 1);
