// Load protection under a concurrent flood of writes and logins (bounded, loopback only):
// what does not fit is refused with 429 SERVER_TOO_MANY_REQUESTS and a Retry-After header,
// reads keep answering 200 throughout, and every acknowledged write is readable afterwards.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ApiResponse } from '../support/test-node.js';
import { ADMIN, startTestNode, type TestNode } from '../support/test-node.js';

describe('load protection', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode({ config: { mailboxSize: 4, workerThreads: 1 } });
  });
  after(async () => {
    await node.close();
  });

  it('sheds writes and logins with 429 + Retry-After, keeps reads at 200, loses no acknowledged write', async () => {
    const t = node.adminToken;
    const users = [await node.createUser('flood-a'), await node.createUser('flood-b')];
    // The flood's connections are opened first: their TLS handshakes, made one after another on
    // a loaded machine, would otherwise spread the creates out enough for the actor to keep up.
    await Promise.all(Array.from({ length: 210 }, () => node.mgmt.get('/version')));
    let flooding = true;
    const reads: ApiResponse[] = [];
    const reader = (async () => {
      while (flooding) {
        const batch = await Promise.all([
          node.mgmt.get('/identities?limit=5', t),
          node.mgmt.get('/config-types?limit=5', t),
          node.mgmt.get(`/identities/${users[0]!.id}`, t),
          node.client.get('/current-api-session', t),
        ]);
        reads.push(...batch);
      }
    })();

    // Config types share one catalog actor (mailbox of 4); each identity has its own actor.
    const configTypes = Array.from({ length: 150 }, (_, i) => node.mgmt.post('/config-types', { name: `flood-type-${i}` }, t).then((res) => ({ i, res })));
    const identities = Array.from({ length: 60 }, (_, i) =>
      node.mgmt.post('/identities', { name: `flood-identity-${i}`, type: 'User', isAdmin: false }, t).then((res) => ({ i, res })),
    );
    const logins = Array.from({ length: 150 }, (_, i) => {
      const who = i % 3 === 0 ? { username: ADMIN.username, password: ADMIN.password } : { username: users[i % 2]!.username, password: i % 5 === 0 ? 'wrong-password' : 'user-password-1' };
      return node.client.post('/authenticate?method=password', who);
    });
    const writes = await Promise.all([...configTypes, ...identities]);
    const loginResults = await Promise.all(logins);
    flooding = false;
    await reader;

    const statuses = (list: { res: ApiResponse }[]) => list.reduce<Record<number, number>>((acc, { res }) => ({ ...acc, [res.status]: (acc[res.status] ?? 0) + 1 }), {});
    for (const { res } of writes) assert.ok(res.status === 201 || res.status === 429, `write answered ${res.status}: ${res.text}`);
    const refused = writes.filter(({ res }) => res.status === 429);
    assert.ok(refused.length > 0, `the flood must overflow the config-type mailbox: ${JSON.stringify(statuses(writes))}`);
    for (const { res } of refused) {
      assert.equal(res.body.error.code, 'SERVER_TOO_MANY_REQUESTS');
      assert.equal(res.headers.get('retry-after'), '1');
    }
    for (const res of loginResults) {
      assert.ok([200, 401, 429].includes(res.status), `login answered ${res.status}: ${res.text}`);
      if (res.status === 429) assert.equal(res.headers.get('retry-after'), '1');
    }
    assert.ok(loginResults.some((r) => r.status === 200));

    assert.ok(reads.length >= 4, 'reads ran during the flood');
    for (const res of reads) assert.equal(res.status, 200, `a read answered ${res.status}: ${res.text}`);

    // Every acknowledged create is there, with the body it was created with.
    const accepted = writes.filter(({ res }) => res.status === 201);
    for (const { res } of accepted) {
      const kind = res.body.data._links.self.href.split('/')[1];
      const read = await node.mgmt.get(`/${kind}/${res.body.data.id}`, t);
      assert.equal(read.status, 200, `acknowledged ${kind} ${res.body.data.id} is missing`);
    }
    const listed = await node.mgmt.get('/config-types?filter=name%20contains%20%22flood-type-%22&limit=500', t);
    assert.equal(listed.body.meta.pagination.totalCount, accepted.filter(({ res }) => res.body.data._links.self.href.includes('config-types')).length);

    const metrics = await (await fetch(`${node.handle.url}/metrics`, { dispatcher: (node.mgmt as any).dispatcher } as RequestInit)).text();
    assert.match(metrics, /^weft_backpressure_rejections_total\{source="mailbox"\} [1-9]\d*$/m);
    assert.match(metrics, /^weft_http_requests_total\{method="POST",route="\/edge\/management\/v1\/config-types",status="429"\} [1-9]\d*$/m);
  });
});
