import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { seal, secretMatches, unseal, verifier } from '../../../src/cluster/cluster-seal.js';

const SECRET = 'correct horse battery staple 0123456789';

describe('cluster seal', () => {
  it('opens what it sealed with the same secret and cluster id', () => {
    const sealed = seal(SECRET, 'cluster-a', 'the CA key');
    assert.equal(unseal(SECRET, 'cluster-a', sealed), 'the CA key');
  });

  it('never carries the plain text', () => {
    const sealed = seal(SECRET, 'cluster-a', '-----BEGIN PRIVATE KEY-----');
    assert.ok(!Buffer.from(sealed, 'base64url').toString('latin1').includes('PRIVATE KEY'));
  });

  it('refuses another secret, another cluster id and changed data', () => {
    const sealed = seal(SECRET, 'cluster-a', 'the CA key');
    assert.throws(() => unseal(`${SECRET}x`, 'cluster-a', sealed));
    assert.throws(() => unseal(SECRET, 'cluster-b', sealed));
    const raw = Buffer.from(sealed, 'base64url');
    raw[raw.length - 1] ^= 1;
    assert.throws(() => unseal(SECRET, 'cluster-a', raw.toString('base64url')));
  });

  it('tells a matching secret from another one by the verifier', () => {
    const v = verifier(SECRET, 'cluster-a');
    assert.equal(secretMatches(SECRET, 'cluster-a', v), true);
    assert.equal(secretMatches(`${SECRET}!`, 'cluster-a', v), false);
    assert.equal(secretMatches(SECRET, 'cluster-b', v), false);
  });
});
