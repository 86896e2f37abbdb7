// Test support: the answer checks API tests repeat, and the certificate fingerprint Weft uses
// (lowercase hex SHA-1 of the DER).

import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import type { ApiResponse } from './test-node.js';

/** Asserts the status (200 by default) and returns `data`. */
export function ok(res: ApiResponse, status = 200): any {
  assert.equal(res.status, status, res.text);
  return res.body?.data;
}

/** Asserts an error answer: its status and its code. */
export function fails(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
}

export function fingerprintOf(pem: string): string {
  return createHash('sha1').update(new X509Certificate(pem).raw).digest('hex');
}
