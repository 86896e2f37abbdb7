// deploy/compose.yaml, validated offline: three NATS servers forming one JetStream cluster
// (`nats-server -t` on their configuration), three Weft nodes in cluster mode whose settings pass
// the node's config parser, and HAProxy in TCP mode (`haproxy -c`) in front of exactly those nodes.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../../src/config.js';
import { DRAIN_TIMEOUT_MS } from '../../src/listener-drain.js';
import { findNatsServer } from '../support/nats-server.js';
import { parseYamlDocuments } from '../support/kustomize.js';
import { startTestNode } from '../support/test-node.js';

const DEPLOY = fileURLToPath(new URL('../../../deploy/', import.meta.url));
const compose = parseYamlDocuments(readFileSync(join(DEPLOY, 'compose.yaml'), 'utf8'))[0];
const services = compose.services as Record<string, any>;
const NATS = ['nats-1', 'nats-2', 'nats-3'];
const WEFT = ['weft-1', 'weft-2', 'weft-3'];

function exitCode(bin: string, args: string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: 'ignore', timeout: 20_000 });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
}

function haproxyBin(): string {
  const candidates = [process.env.HAPROXY_BIN, ...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'haproxy')), '/usr/sbin/haproxy', '/usr/local/sbin/haproxy'];
  const found = candidates.find((c): c is string => !!c && existsSync(c));
  if (!found) throw new Error('haproxy is not installed (apt-get install haproxy); the test command installs it');
  return found;
}

/** The host file a service mounts at `target` (bind mounts are relative to deploy/). */
function mounted(service: string, target: string): string {
  const bind = (services[service].volumes as string[]).find((v) => v.split(':')[1] === target);
  assert.ok(bind, `${service} mounts ${target}`);
  return join(DEPLOY, bind.split(':')[0]);
}

/** Compose interpolation of `${VAR}`, `${VAR:-default}` and `${VAR:?message}` from `vars`. */
function interpolate(value: unknown, vars: Record<string, string>): string {
  return String(value).replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_m, name: string, op?: string, rest?: string) => {
    if (vars[name]) return vars[name]!;
    if (op === '?') throw new Error(`${name} is required: ${rest}`);
    return op === '-' ? rest ?? '' : '';
  });
}

describe('deploy/compose.yaml', () => {
  it('runs three NATS servers, three Weft nodes and HAProxy, and declares every volume it uses', () => {
    assert.deepEqual(Object.keys(services).sort(), ['haproxy', ...NATS, ...WEFT].sort());
    const declared = new Set(Object.keys(compose.volumes));
    for (const [name, s] of Object.entries(services)) {
      for (const v of s.volumes ?? []) {
        const source = String(v).split(':')[0]!;
        if (source.startsWith('.')) assert.ok(existsSync(join(DEPLOY, source)), `${name}: ${source} exists`);
        else assert.ok(declared.has(source), `${name}: volume ${source} is declared`);
      }
      for (const dep of s.depends_on ?? []) assert.ok(services[dep], `${name} depends on ${dep}, which exists`);
    }
    for (const w of WEFT) assert.deepEqual(services[w].depends_on, NATS);
  });

  it('each NATS server passes nats-server -t and the three route to each other with JetStream', () => {
    for (const n of NATS) {
      const conf = mounted(n, '/etc/nats/nats.conf');
      assert.deepEqual(services[n].command, ['--config', '/etc/nats/nats.conf']);
      const run = spawnSync(findNatsServer(), ['-t', '-c', conf], { env: { ...process.env, SERVER_NAME: services[n].environment.SERVER_NAME }, encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stderr + run.stdout, /is valid/);
      assert.equal(services[n].environment.SERVER_NAME, n);
      assert.ok(services[n].volumes.some((v: string) => v.endsWith(':/data')), `${n} keeps its JetStream store in a volume`);
      const text = readFileSync(conf, 'utf8');
      assert.match(text, /^jetstream \{[^}]*store_dir: \/data/m);
      assert.deepEqual([...text.matchAll(/nats:\/\/([\w-]+):6222/g)].map((m) => m[1]), NATS);
    }
  });

  it('the Weft nodes are one cluster: same NATS servers and secret, own node id and data volume, settings the node accepts', () => {
    const vars = { WEFT_CLUSTER_SECRET: 's'.repeat(64) };
    const dataVolumes = new Set<string>();
    for (const w of WEFT) {
      const env = Object.fromEntries(Object.entries(services[w].environment).map(([k, v]) => [k, interpolate(v, vars)]));
      const config = parseConfig([], env);
      assert.notEqual(config, 'help');
      if (config === 'help') return;
      assert.equal(config.nodeId, w);
      assert.equal(config.clusterSecret, vars.WEFT_CLUSTER_SECRET);
      assert.deepEqual(config.natsUrl!.split(',').map((u) => new URL(u).hostname), NATS);
      assert.equal(config.clusterReplicas, 3);
      dataVolumes.add(services[w].volumes.find((v: string) => v.endsWith(':/data')));
    }
    assert.equal(dataVolumes.size, 3, 'each node has its own data volume');
  });

  it('the nodes\' healthcheck exits 0 against a ready node and 1 where none answers', async () => {
    const test = services['weft-1'].healthcheck.test as string[];
    assert.deepEqual(test.slice(0, 3), ['CMD', 'node', '-e']);
    const node = await startTestNode();
    try {
      const port = new URL(node.handle.url).port;
      // Not spawnSync: the node answering runs in this process's event loop.
      const ready = await exitCode(process.execPath, ['-e', test[3]!.replace('127.0.0.1:1280', `127.0.0.1:${port}`)]);
      assert.equal(ready, 0);
    } finally {
      await node.close();
    }
    const none = spawnSync(process.execPath, ['-e', test[3]!.replace('127.0.0.1:1280', '127.0.0.1:9')], { timeout: 20_000 });
    assert.equal(none.status, 1);
  });

  it('refuses to start without WEFT_CLUSTER_SECRET (compose interpolation ${...:?})', () => {
    assert.throws(() => interpolate(services['weft-1'].environment.WEFT_CLUSTER_SECRET, {}), /WEFT_CLUSTER_SECRET is required/);
  });

  it('HAProxy passes TCP through to exactly the three nodes, checks /readyz, and haproxy -c accepts it', () => {
    const cfg = mounted('haproxy', '/usr/local/etc/haproxy/haproxy.cfg');
    const run = spawnSync(haproxyBin(), ['-c', '-f', cfg], { encoding: 'utf8' });
    const output = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.status, 0, output);
    assert.match(output, /Configuration file is valid/);
    // Offline, the node names do not resolve; any other warning is a defect.
    const warnings = output.split('\n').filter((l) => l.includes('[WARNING]') && !/could not resolve address 'weft-[123]'/.test(l));
    assert.deepEqual(warnings, []);
    const text = readFileSync(cfg, 'utf8');
    assert.match(text, /^\s*mode tcp$/m);
    assert.doesNotMatch(text, /mode http|ssl crt/, 'no TLS termination');
    const servers = [...text.matchAll(/^\s*server (\S+) (\S+):(\d+)/gm)].map((m) => `${m[1]}=${m[2]}:${m[3]}`);
    // Each node twice per backend: checked, and as an unchecked backup for when none is ready.
    const twice = (port: number) => [...WEFT.map((w) => `${w}=${w}:${port}`), ...WEFT.map((w) => `${w}-fallback=${w}:${port}`)];
    assert.deepEqual(servers, [...twice(1280), ...twice(1281)]);
    assert.equal([...text.matchAll(/^\s*server \S+ \S+ backup no-check$/gm)].length, 6);
    assert.equal([...text.matchAll(/option httpchk GET \/readyz/g)].length, 2);
    assert.deepEqual(services.haproxy.ports, ['1280:1280', '1281:1281']);
  });

  it('a stopping node is out of HAProxy before its shutdown grace ends, and Compose gives it time to stop', () => {
    const text = readFileSync(mounted('haproxy', '/usr/local/etc/haproxy/haproxy.cfg'), 'utf8');
    const check = /^\s*default-server .*\binter (\d+)(ms|s) fastinter (\d+)(ms|s) fall (\d+)/m.exec(text);
    assert.ok(check, 'default-server sets inter, fastinter and fall');
    const ms = (n: string, unit: string) => Number(n) * (unit === 's' ? 1000 : 1);
    // The next check, then fall - 1 more at the fast interval; plus a second for the checks themselves.
    const outWithinMs = ms(check[1]!, check[2]!) + (Number(check[5]) - 1) * ms(check[3]!, check[4]!) + 1_000;
    const vars = { WEFT_CLUSTER_SECRET: 's'.repeat(64) };
    const config = parseConfig([], Object.fromEntries(Object.entries(services['weft-1'].environment).map(([k, v]) => [k, interpolate(v, vars)])));
    assert.notEqual(config, 'help');
    if (config === 'help') return;
    assert.ok(outWithinMs <= config.shutdownGraceMs, `HAProxy takes a node out within ${outWithinMs} ms, the grace is ${config.shutdownGraceMs} ms`);
    const stopGrace = /^(\d+)s$/.exec(String(services['weft-1'].stop_grace_period));
    assert.ok(stopGrace, 'the nodes set stop_grace_period in seconds');
    assert.ok(Number(stopGrace[1]) * 1000 >= config.shutdownGraceMs + DRAIN_TIMEOUT_MS + 5_000, `stop_grace_period ${stopGrace[0]} covers the grace, the drain and leaving`);
  });

  it('after a reload, the old HAProxy worker may finish a removed node\'s connections: hard-stop-after outlasts its grace and drain', () => {
    const text = readFileSync(mounted('haproxy', '/usr/local/etc/haproxy/haproxy.cfg'), 'utf8');
    const bound = /^\s*hard-stop-after (\d+)(ms|s|m)$/m.exec(text);
    assert.ok(bound, 'global sets hard-stop-after (an old worker does not live on for ever)');
    const boundMs = Number(bound[1]) * { ms: 1, s: 1000, m: 60_000 }[bound[2] as 'ms' | 's' | 'm'];
    const vars = { WEFT_CLUSTER_SECRET: 's'.repeat(64) };
    const config = parseConfig([], Object.fromEntries(Object.entries(services['weft-1'].environment).map(([k, v]) => [k, interpolate(v, vars)])));
    assert.notEqual(config, 'help');
    if (config === 'help') return;
    assert.ok(boundMs > config.shutdownGraceMs + DRAIN_TIMEOUT_MS, `hard-stop-after ${bound[1]}${bound[2]} outlasts the grace (${config.shutdownGraceMs} ms) and the drain (${DRAIN_TIMEOUT_MS} ms)`);
  });
});
