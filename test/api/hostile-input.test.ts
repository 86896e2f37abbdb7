// Hostile input over both APIs: every malformed request gets a 4xx, no answer carries internal
// error text, and the node keeps answering /version while each attack runs — measured as the
// event loop's longest delay during the attack (perf_hooks histogram), not as a wall-clock race.

import assert from 'node:assert/strict';
import { readdir, stat } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { Agent } from 'undici';
import { MAX_JSON_DEPTH } from '../../src/gateway/middleware/body.js';
import { MAX_FILTER_DEPTH, MAX_FILTER_LENGTH } from '../../src/domain/query/index.js';
import { MAX_LIST_ITEMS } from '../../src/domain/validate.js';
import { startTestNode, type ApiClient, type ApiResponse, type TestNode } from '../support/test-node.js';

/** The longest the event loop may stall while an attack runs. The target is 50 ms on a quiet
 * machine; this bound leaves room for a heavily loaded, shared test machine (where even a 405
 * was seen to wait 500 ms) and stays below the seconds to minutes each attack used to cost. */
const MAX_STALL_MS = 2000;
/** Text that only an internal failure puts into an answer. */
const INTERNAL_TEXT = /Maximum call stack|incorrect header check|RangeError|TypeError|SyntaxError: |ReferenceError|\.js:\d+|node:internal|Not Implemented/;

let node: TestNode;
let apis: [string, ApiClient][];

/** Runs an attack while /version is asked over and over; returns the attack's answers and the
 * event loop's longest delay meanwhile. */
async function underAttack<T>(attack: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let running = true;
  const health = (async () => {
    const answers: ApiResponse[] = [];
    while (running) answers.push(await node.mgmt.get('/version'));
    return answers;
  })();
  try {
    const result = await attack();
    return { result, stallMs: histogram.max / 1e6 };
  } finally {
    running = false;
    histogram.disable();
    for (const res of await health) assert.equal(res.status, 200);
  }
}

/** Asserts the answer is a 4xx with the expected code and no internal text. */
function refused(res: ApiResponse, status: number, code?: string): void {
  assert.equal(res.status, status, res.text);
  if (code) assert.equal(res.body?.error?.code, code, res.text);
  assert.doesNotMatch(res.text, INTERNAL_TEXT);
}

/** A request with any method, path and headers, for what fetch refuses to send (TRACE). */
function rawRequest(method: string, path: string, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const url = new URL(`${node.handle.url}${path}`);
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, ca: node.handle.caPem }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: new Headers(res.headers as Record<string, string>), body, text });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

/** A small seeded generator (mulberry32), so a failing case can be replayed. */
function seeded(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    chance: (p: number) => next() < p,
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!,
  };
}
type Random = ReturnType<typeof seeded>;

const FIELDS = ['name', 'type', 'isAdmin', 'roleAttributes', 'tags', 'appData', 'maxIdleTimeMillis', 'schema', 'data', 'configTypeId', 'identityRoles', 'serviceRoles', 'semantic', 'username', 'password', 'configTypes', 'method', 'identityId', 'certPem', 'primary', 'operatingSystems', '__proto__', 'constructor'];

function randomScalar(random: Random): unknown {
  return random.pick<() => unknown>([
    () => null,
    () => random.chance(0.5),
    () => random.pick([0, -1, 1e300, -1e300, 2 ** 63, 9007199254740993, 1.5, -0]),
    () => random.pick(['', 'x', '#all', '@x1', 'Dial', 'User', '\u0000', '\ud800', 'a'.repeat(300), '(((', '"quoted"', '../../etc']),
  ])();
}

function randomJson(random: Random, depth: number): unknown {
  if (depth > 3 || random.chance(0.3)) return randomScalar(random);
  if (random.chance(0.15)) return JSON.parse(nested(MAX_JSON_DEPTH - depth - 1 + random.int(3)));
  if (random.chance(0.4)) return Array.from({ length: random.chance(0.1) ? MAX_LIST_ITEMS + 1 : random.int(4) }, () => randomJson(random, depth + 2));
  const out: Record<string, unknown> = {};
  for (let i = random.int(6); i > 0; i--) out[random.pick(FIELDS)] = randomJson(random, depth + 1);
  return out;
}

function randomText(random: Random): string {
  return random.pick(['{', '{"a":', 'null', '[]', '"x"', '\u0000', 'name=x&type=User', '{"a":1}{"b":2}', '\xff\xfe', '-----BEGIN CERTIFICATE-----\nxx\n-----END CERTIFICATE-----']);
}

function randomFilter(random: Random): string {
  const atoms = ['name = "x"', 'true', 'roleAttributes contains "a"', 'anyOf(roleAttributes) = "x"', 'name in ["a","b"]', 'createdAt > datetime(2020-01-01T00:00:00Z)', 'nope = 1', 'count(roles) > 1', '"', ')', 'limit none', 'sort by name desc', 'skip -1'];
  let text = random.pick(atoms);
  for (let i = random.int(4); i > 0; i--) text = random.chance(0.5) ? `(${text}) ${random.pick(['and', 'or'])} ${random.pick(atoms)}` : `not (${text})`;
  return random.chance(0.1) ? '('.repeat(40) + text + ')'.repeat(40) : text;
}

describe('hostile input', () => {
  before(async () => {
    node = await startTestNode();
    apis = [
      ['management', node.mgmt],
      ['client', node.client],
    ];
  });
  after(async () => {
    await node.close();
  });

  describe('malformed requests get a 4xx without internal text', () => {
    it('refuses JSON nested 5,000 levels deep on /authenticate of both APIs, without a session', async () => {
      for (const [, api] of apis) {
        const { result, stallMs } = await underAttack(() => api.request('POST', '/authenticate?method=password', { raw: `{"username":${nested(5000)}}` }));
        refused(result, 400, 'COULD_NOT_PARSE_BODY');
        assert.match(result.body.error.cause.message, new RegExp(`cap is ${MAX_JSON_DEPTH}`));
        assert.ok(stallMs < MAX_STALL_MS, `event loop stalled ${stallMs} ms`);
      }
    });

    it('refuses deep JSON in identity tags and appData and in config-type schemas', async () => {
      const t = node.adminToken;
      const deep = nested(5000);
      refused(await node.mgmt.request('POST', '/identities', { raw: `{"name":"d1","type":"User","isAdmin":false,"tags":{"a":${deep}}}`, token: t }), 400, 'COULD_NOT_PARSE_BODY');
      refused(await node.mgmt.request('POST', '/identities', { raw: `{"name":"d2","type":"User","isAdmin":false,"appData":{"a":${deep}}}`, token: t }), 400, 'COULD_NOT_PARSE_BODY');
      refused(await node.mgmt.request('POST', '/config-types', { raw: `{"name":"d3","schema":{"a":${deep}}}`, token: t }), 400, 'COULD_NOT_PARSE_BODY');
    });

    it('keeps JSON nested within the cap', async () => {
      const type = await node.mgmt.post('/config-types', { name: 'deep-ok-type' }, node.adminToken);
      assert.equal(type.status, 201, type.text);
      const data = { a: JSON.parse(nested(MAX_JSON_DEPTH - 2)) };
      const res = await node.mgmt.post('/configs', { name: 'deep-ok', configTypeId: type.body.data.id, data }, node.adminToken);
      assert.equal(res.status, 201, res.text);
    });

    it('refuses a filter of 5,000 nested parentheses, and one just over the nesting cap', async () => {
      const t = node.adminToken;
      const huge = '('.repeat(5000) + 'name = "x"' + ')'.repeat(5000);
      refused(await node.mgmt.get(`/identities?filter=${encodeURIComponent(huge)}`, t), 400, 'INVALID_FILTER');
      const over = '('.repeat(MAX_FILTER_DEPTH + 1) + 'name = "x"' + ')'.repeat(MAX_FILTER_DEPTH + 1);
      const res = await node.mgmt.get(`/identities?filter=${encodeURIComponent(over)}`, t);
      refused(res, 400, 'INVALID_FILTER');
      assert.match(res.body.error.cause.message, new RegExp(`cap is ${MAX_FILTER_DEPTH}`));
      const long = await node.mgmt.get(`/identities?filter=${encodeURIComponent(`name = "${'x'.repeat(MAX_FILTER_LENGTH)}"`)}`, t);
      refused(long, 400, 'INVALID_FILTER');
    });

    it('refuses a gzip Content-Encoding whose body is not gzip with 400, and reads real gzip', async () => {
      const t = node.adminToken;
      for (const [, api] of apis) {
        const res = await api.request('POST', '/authenticate?method=password', { raw: 'not gzip at all', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
        refused(res, 400, 'COULD_NOT_PARSE_BODY');
      }
      const body = gzipSync(JSON.stringify({ name: 'gzipped', type: 'User', isAdmin: false }));
      const res = await fetch(`${node.mgmt.base}/identities`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'zt-session': t },
        body,
        dispatcher: (node.mgmt as unknown as { dispatcher: unknown }).dispatcher,
      } as RequestInit);
      assert.equal(res.status, 201, await res.text());
      refused(await node.mgmt.request('POST', '/identities', { raw: '{}', token: t, headers: { 'content-type': 'application/json', 'content-encoding': 'br' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers invalid gzip/deflate bodies of any size with 400 and keeps the connection usable', async () => {
      // One connection: every answer, and the /version after it, must come back over it.
      const dispatcher = new Agent({ connect: { ca: node.handle.caPem }, connections: 1 });
      try {
        for (let i = 0; i < 16; i++) {
          const body = i % 2 ? 'x'.repeat(i * 40_000) : JSON.stringify({ name: 'n'.repeat(i * 30_000) });
          const res = await fetch(`${node.mgmt.base}/identities`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'content-encoding': i % 4 < 2 ? 'gzip' : 'deflate', 'zt-session': node.adminToken },
            body,
            dispatcher,
          } as RequestInit);
          assert.equal(res.status, 400, `${body.length} bytes`);
          assert.doesNotMatch(await res.text(), INTERNAL_TEXT);
          const version = await fetch(`${node.mgmt.base}/version`, { dispatcher } as RequestInit);
          assert.equal(version.status, 200);
          await version.text();
        }
      } finally {
        await dispatcher.close();
      }
    });

    it('answers TRACE, PROPFIND and other unserved methods with 405 on both APIs and the root', async () => {
      for (const path of ['/edge/management/v1/identities', '/edge/client/v1/current-api-session', '/version', '/edge/management/v1/version']) {
        for (const method of ['TRACE', 'PROPFIND', 'MKCOL', 'PURGE']) {
          refused(await rawRequest(method, path, { 'zt-session': node.adminToken }), 405, 'METHOD_NOT_ALLOWED');
        }
        // A method the HTTP parser does not know is refused by it, before the gateway.
        refused(await rawRequest('CONNECTX', path), 400);
      }
    });

    it('refuses text/plain JSON and a body without a content type with 415, storing nothing', async () => {
      const t = node.adminToken;
      const raw = JSON.stringify({ name: 'plain-text', type: 'User', isAdmin: false });
      refused(await node.mgmt.request('POST', '/identities', { raw, token: t, headers: { 'content-type': 'text/plain' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      refused(await rawRequest('POST', '/edge/management/v1/identities', { 'zt-session': t, 'content-length': '0' }), 400);
      const res = await fetch(`${node.mgmt.base}/identities`, {
        method: 'POST',
        headers: { 'zt-session': t },
        body: new Blob([raw]),
        dispatcher: (node.mgmt as unknown as { dispatcher: unknown }).dispatcher,
      } as RequestInit);
      assert.equal(res.status, 415);
      for (const [, api] of apis) {
        refused(await api.request('POST', '/authenticate?method=password', { raw: '{"username":"admin","password":"x"}', headers: { 'content-type': 'text/plain' } }), 415);
      }
      const list = await node.mgmt.get('/identities?filter=name%3D%22plain-text%22', t);
      assert.equal(list.body.meta.pagination.totalCount, 0);
    });

    it('refuses a JSON body that is not an object (a string, a number, null) with 400, not 415', async () => {
      const t = node.adminToken;
      const headers = { 'content-type': 'application/json' };
      for (const raw of ['"x"', '  "x"  ', '1', 'true', 'null', '[]']) {
        refused(await node.mgmt.request('POST', '/identities', { raw, token: t, headers }), 400, 'COULD_NOT_VALIDATE');
        for (const [, api] of apis) {
          const res = await api.request('POST', '/authenticate?method=password', { raw, headers });
          assert.ok(res.status === 400 || res.status === 401, `${raw}: ${res.status} ${res.text}`);
          assert.doesNotMatch(res.text, INTERNAL_TEXT);
        }
      }
    });
  });

  describe('documented caps, checked before any work', () => {
    it(`refuses 20,000 role attributes with 400 naming the field and the cap of ${MAX_LIST_ITEMS}`, async () => {
      const raw = JSON.stringify({ name: 'many-roles', type: 'User', isAdmin: false, roleAttributes: Array.from({ length: 20_000 }, (_, i) => `r${i}`) });
      const { result, stallMs } = await underAttack(() => node.mgmt.request('POST', '/identities', { raw, token: node.adminToken }));
      refused(result, 400, 'COULD_NOT_VALIDATE');
      assert.equal(result.body.error.cause.field, 'roleAttributes');
      assert.match(result.body.error.cause.reason, new RegExp(`the cap is ${MAX_LIST_ITEMS}`));
      assert.ok(stallMs < MAX_STALL_MS, `event loop stalled ${stallMs} ms`);
    });

    it('refuses too many selectors in a policy and too many configTypes in a login', async () => {
      const selectors = Array.from({ length: MAX_LIST_ITEMS + 1 }, (_, i) => `#s${i}`);
      const policy = await node.mgmt.post('/service-policies', { name: 'many-selectors', type: 'Dial', semantic: 'AnyOf', identityRoles: selectors, serviceRoles: ['#all'] }, node.adminToken);
      refused(policy, 400, 'COULD_NOT_VALIDATE');
      assert.equal(policy.body.error.cause.field, 'identityRoles');
      const configTypes = Array.from({ length: MAX_LIST_ITEMS + 1 }, (_, i) => `c${i}`);
      for (const [, api] of apis) {
        const login = await api.post('/authenticate?method=password', { username: 'admin', password: 'whatever', configTypes });
        refused(login, 400, 'COULD_NOT_VALIDATE');
        assert.equal(login.body.error.cause.field, 'configTypes');
      }
    });

    it('refuses maxIdleTimeMillis 1e300 with 400 naming the field, and stores nothing', async () => {
      const res = await node.mgmt.request('POST', '/services', { raw: '{"name":"huge-idle","encryptionRequired":true,"maxIdleTimeMillis":1e300}', token: node.adminToken });
      refused(res, 400, 'COULD_NOT_VALIDATE');
      assert.equal(res.body.error.cause.field, 'maxIdleTimeMillis');
      const list = await node.mgmt.get('/services?filter=name%3D%22huge-idle%22', node.adminToken);
      assert.equal(list.body.meta.pagination.totalCount, 0);
    });
  });

  describe('schema patterns run in linear time', () => {
    it('accepts a config type with "^(a+)+$" and checks a config against it without blocking the node', async () => {
      const t = node.adminToken;
      const type = await node.mgmt.post('/config-types', { name: 'evil-pattern', schema: { type: 'object', properties: { v: { type: 'string', pattern: '^(a+)+$' } } } }, t);
      assert.equal(type.status, 201, type.text);
      const { result, stallMs } = await underAttack(() => node.mgmt.post('/configs', { name: 'evil-config', configTypeId: type.body.data.id, data: { v: `${'a'.repeat(40)}!` } }, t));
      refused(result, 400, 'COULD_NOT_VALIDATE');
      assert.equal(result.body.error.cause.field, 'data.v');
      assert.ok(stallMs < MAX_STALL_MS, `event loop stalled ${stallMs} ms`);
    });

    it('refuses a pattern the linear engine cannot run with 400 on the schema field', async () => {
      const res = await node.mgmt.post('/config-types', { name: 'backref-pattern', schema: { type: 'string', pattern: '^(a+)\\1$' } }, node.adminToken);
      refused(res, 400, 'COULD_NOT_VALIDATE');
      assert.equal(res.body.error.cause.field, 'schema');
      assert.match(res.body.error.cause.reason, /linear-time/);
    });
  });

  describe('random hostile requests (seeded, property style)', () => {
    it('answers 400 random bodies, filters, types and encodings on both APIs without a 5xx or internal text', async () => {
      const random = seeded(16);
      const paths = ['/identities', '/identities/x1', '/services', '/config-types', '/configs', '/service-policies', '/edge-router-policies', '/auth-policies', '/posture-checks', '/authenticators', '/authenticate?method=password', '/authenticate?method=cert', '/authenticate?method=ext-jwt', '/current-identity', '/current-api-session', '/identities/x1/service-configs'];
      const types = ['application/json', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded', 'application/merge-patch+json', 'multipart/form-data; boundary=x', ''];
      // Bodies under gzip/deflate are never valid gzip/deflate data here: each is a 400 that
      // leaves the keep-alive connection usable for the requests after it.
      const encodings = ['', '', '', 'br', 'compress', 'gzip', 'deflate', 'x-gzip'];
      const { stallMs } = await underAttack(async () => {
        for (let i = 0; i < 160; i++) {
          const [, api] = apis[i % 2]!;
          const method = random.pick(['POST', 'PUT', 'PATCH', 'DELETE', 'GET']);
          const path = random.pick(paths) + (random.chance(0.3) ? `${random.pick(['?', '&'])}filter=${encodeURIComponent(randomFilter(random))}` : '');
          const headers: Record<string, string> = { 'content-type': random.pick(types) };
          const encoding = random.pick(encodings);
          if (encoding) headers['content-encoding'] = encoding;
          const raw = method === 'GET' ? undefined : random.chance(0.2) ? randomText(random) : JSON.stringify(randomJson(random, 0));
          const res = await api.request(method, path, { raw, headers, token: random.chance(0.8) ? node.adminToken : undefined }).catch((err: Error) => {
            throw new Error(`${method} ${path} ${JSON.stringify(headers)} ${raw?.length} ${raw?.slice(0, 100)}: ${err.message} ${String((err as { cause?: unknown }).cause)}`);
          });
          assert.ok(res.status < 500, `${method} ${path} ${JSON.stringify(headers)} ${raw?.slice(0, 200)} -> ${res.status} ${res.text.slice(0, 300)}`);
          assert.doesNotMatch(res.text, INTERNAL_TEXT, `${method} ${path}`);
        }
      });
      assert.ok(stallMs < MAX_STALL_MS, `event loop stalled ${stallMs} ms`);
    });
  });

  describe('files and TLS', () => {
    it('creates every file under the data directory owner-only', async () => {
      const res = await node.mgmt.post('/identities', { name: 'file-modes', type: 'User', isAdmin: false }, node.adminToken);
      assert.equal(res.status, 201);
      const open: string[] = [];
      const walk = async (dir: string): Promise<void> => {
        for (const entry of await readdir(dir, { withFileTypes: true })) {
          const path = join(dir, entry.name);
          if ((await stat(path)).mode & 0o077) open.push(path);
          if (entry.isDirectory()) await walk(path);
        }
      };
      await walk(node.dataDir);
      assert.deepEqual(open, []);
    });

    it('refuses TLS 1.2 suites without forward secrecy or AEAD, and takes ECDHE-GCM and TLS 1.3', async () => {
      const url = new URL(node.handle.url);
      const handshake = (opts: ConnectionOptions) =>
        new Promise<string>((resolve) => {
          const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ca: node.handle.caPem, servername: 'localhost', ...opts }, () => {
            resolve(`${socket.getProtocol()} ${socket.getCipher().name}`);
            socket.end();
          });
          socket.on('error', () => resolve('refused'));
        });
      for (const ciphers of ['AES128-SHA', 'AES256-GCM-SHA384', 'ECDHE-RSA-AES128-SHA', 'DHE-RSA-AES128-SHA']) {
        assert.equal(await handshake({ maxVersion: 'TLSv1.2', ciphers }), 'refused', ciphers);
      }
      assert.equal(await handshake({ maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' }), 'TLSv1.2 ECDHE-RSA-AES128-GCM-SHA256');
      assert.equal(await handshake({ maxVersion: 'TLSv1.1', minVersion: 'TLSv1' }), 'refused');
      assert.match(await handshake({}), /^TLSv1\.3 TLS_/);
    });
  });
});

describe('failed logins are throttled before the password hash', () => {
  let own: TestNode;
  before(async () => {
    own = await startTestNode();
  });
  after(async () => {
    await own.close();
  });

  it('answers a guessing run against the admin with 429 and Retry-After, the right password included', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await own.client.post('/authenticate?method=password', { username: 'admin', password: `guess-${i}` });
      statuses.push(res.status);
      if (res.status === 429) {
        assert.equal(res.body.error.code, 'RATE_LIMITED');
        assert.ok(Number(res.headers.get('retry-after')) >= 1);
      }
    }
    assert.deepEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401]);
    // Each wait is 1 s, 2 s, 4 s ...: on a slow machine an attempt may land after one ends.
    const later = statuses.slice(5);
    assert.ok(later.every((s) => s === 429 || s === 401), `statuses: ${statuses.join(' ')}`);
    assert.ok(later.filter((s) => s === 429).length >= 10, `statuses: ${statuses.join(' ')}`);
    const right = await own.mgmt.post('/authenticate?method=password', { username: 'admin', password: 'admin-secret-pw' });
    refused(right, 429, 'RATE_LIMITED');
  });
});
