#!/usr/bin/env node
// The test command: makes sure a real nats-server and HAProxy are available (installing
// Debian's packages when missing), runs every compiled test file with node's test runner, then
// the API tests once more with every test node on the NATS bus and once in cluster mode, then
// the cluster tests (real processes, one file at a time), and prints the combined count.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function findBinary(name, envVar) {
  const candidates = [process.env[envVar], `/usr/bin/${name}`, `/usr/sbin/${name}`, `/usr/local/bin/${name}`, `/usr/local/sbin/${name}`];
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir) candidates.push(join(dir, name));
  return candidates.find((c) => c && existsSync(c));
}

/** The binary's path; installs the Debian package of that name when it is missing. */
function ensureBinary(name, envVar) {
  let bin = findBinary(name, envVar);
  if (bin) return bin;
  console.log(`${name} not found: installing the Debian package ${name}`);
  const sudo = process.getuid && process.getuid() === 0 ? [] : ['sudo'];
  const run = (args) => execFileSync(sudo.length ? 'sudo' : args[0], sudo.length ? args : args.slice(1), { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  run(['apt-get', 'update']);
  run(['apt-get', 'install', '-y', name]);
  bin = findBinary(name, envVar);
  if (!bin) throw new Error(`${name} is still missing after apt-get install ${name}`);
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

/** No single test (or suite) runs longer than this; the longest take a few minutes. */
const TEST_TIMEOUT_MS = 20 * 60_000;

/** Runs node's test runner on files, streaming its output; resolves to its exit code and counts. */
function runTests(files, extraEnv, concurrency = 2) {
  return new Promise((resolve) => {
    // A test that hangs fails after TEST_TIMEOUT_MS, and a file whose tests are done exits even
    // if something it started (a node, a socket) is still open: the run never waits for ever.
    const child = spawn(process.execPath, ['--test', `--test-concurrency=${concurrency}`, `--test-timeout=${TEST_TIMEOUT_MS}`, '--test-force-exit', ...files], {
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
      // A test that timed out is reported as cancelled: it counts as failed.
      resolve({ status: code ?? 1, passed: count('pass'), failed: count('fail') + count('cancelled') });
    });
  });
}

const isCluster = (f) => /(^|\/)test\/cluster\//.test(f);
const only = process.argv.slice(2);
const all = only.length > 0 ? only : testFiles('dist/test');
const files = all.filter((f) => !isCluster(f));
const clusterFiles = all.filter(isCluster);
const env = { NATS_SERVER_BIN: ensureBinary('nats-server', 'NATS_SERVER_BIN') };
const isDeploy = (f) => /(^|\/)test\/deploy\//.test(f);
if (clusterFiles.length > 0 || all.some(isDeploy)) env.HAPROXY_BIN = ensureBinary('haproxy', 'HAPROXY_BIN');
// The README's three-node commands, run as written by a cluster test, wait for NATS with curl.
if (clusterFiles.length > 0) ensureBinary('curl', 'CURL_BIN');
// The manifest tests compare their offline render with `kubectl kustomize` (Debian's kubectl).
if (all.some(isDeploy)) env.KUBECTL_BIN = ensureBinary('kubectl', 'KUBECTL_BIN');
const runs = [];
if (files.length > 0) runs.push(await runTests(files, env));
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
if (clusterFiles.length > 0) {
  // Each file starts its own nats-servers, nodes and HAProxy: one file at a time.
  console.log('\nCluster tests: real nats-server, Weft node and HAProxy processes, one file at a time\n');
  runs.push(await runTests(clusterFiles, env, 1));
}
const passed = runs.reduce((n, r) => n + r.passed, 0);
const failed = runs.reduce((n, r) => n + r.failed, 0);
console.log(`\ntests: ${passed} passed, ${failed} failed`);
process.exit(runs.every((r) => r.status === 0) ? 0 : 1);
