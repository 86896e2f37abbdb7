// Every operation of both upstream specs is served: each appears in the node's own /specs
// document (built from its route table), and a request without a session reaches a handler
// (401 for secured operations, an answer for public ones), never the router's 404 or 405.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestNode, type ApiClient, type TestNode } from '../support/test-node.js';
import { CLIENT_OPERATIONS, MANAGEMENT_OPERATIONS } from '../support/upstream-operations.js';

/** `/a/{id}/b` → `/a/{}/b`: parameter names differ between documents. */
const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');

describe('upstream operations coverage', () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode();
  });
  after(async () => {
    await node?.close();
  });

  const apis: [name: string, specId: string, operations: readonly string[], api: () => ApiClient][] = [
    ['management', 'edge-management', MANAGEMENT_OPERATIONS, () => node.mgmt],
    ['client', 'edge-client', CLIENT_OPERATIONS, () => node.client],
  ];
  for (const [name, specId, operations, api] of apis) {
    it(`the ${name} API's /specs document lists all ${operations.length} upstream operations`, async () => {
      const res = await api().get(`/specs/${specId}/spec`);
      assert.equal(res.status, 200, res.text);
      const doc = JSON.parse(res.body.data) as { paths: Record<string, Record<string, unknown>> };
      const served = new Set(Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${shape(path)}`)));
      const missing = operations.filter((op) => !served.has(shape(op)));
      assert.deepEqual(missing, [], `not in the served document: ${missing.join(', ')}`);
    });

    it(`every ${name} operation reaches a handler (no 404 or 405 from the router)`, async () => {
      const unrouted: string[] = [];
      for (const op of operations) {
        const [method, path] = op.split(' ') as [string, string];
        // The spec documents exist under their ids; any other id is looked up after the session check.
        const concrete = path.startsWith('/specs/') ? path.replace('{id}', specId) : path.replace(/\{[^}]+\}/g, 'coverage-probe');
        const write = method === 'POST' || method === 'PUT' || method === 'PATCH';
        const res = await api().request(method, concrete, write ? { body: {} } : {});
        if (res.status === 404 || res.status === 405) unrouted.push(`${op} → ${res.status}`);
      }
      assert.deepEqual(unrouted, []);
    });
  }
});
