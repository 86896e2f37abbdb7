// Entity ids: the upstream shape, and no repeats across many pool refills.

import assert from 'node:assert/strict';
import { it } from 'node:test';
import { newId } from '../../../src/domain/ids.js';

it('newId gives 10-character upstream-shaped ids without repeats across pool refills', () => {
  const ids = Array.from({ length: 20_000 }, () => newId());
  for (const id of ids) assert.match(id, /^[0-9a-zA-Z][0-9a-zA-Z.-]{9}$/);
  assert.equal(new Set(ids).size, ids.length);
  const firsts = new Set(ids.map((id) => id[0]));
  assert.ok(firsts.size > 50, 'first characters spread over the alphanumerics');
});
