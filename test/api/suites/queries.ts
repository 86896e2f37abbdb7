// The query language over HTTP: filters, sorting, paging defaults and caps, errors, meta.

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { TestNode } from '../../support/test-node.js';

const PREFIX = 'q-';
const COUNT = 24;

export function queriesSuite(node: () => TestNode): void {
  describe('list queries', () => {
    const list = async (query: string) => node().mgmt.get(`/identities?${query}`, node().adminToken);
    const names = (res: { body: { data: { name: string }[] } }) => res.body.data.map((d) => d.name);
    const f = (filter: string) => `filter=${encodeURIComponent(filter)}`;

    before(async () => {
      const creates = [];
      for (let i = 0; i < COUNT; i++) {
        creates.push(
          node().mgmt.post('/identities', {
            name: `${PREFIX}${String(i).padStart(2, '0')}`,
            type: 'User',
            isAdmin: i % 4 === 0,
            roleAttributes: i % 2 === 0 ? ['even', 'q'] : ['odd', 'q'],
            tags: { region: i < 12 ? 'eu' : 'us', n: i },
          }, node().adminToken),
        );
      }
      for (const res of await Promise.all(creates)) assert.equal(res.status, 201);
    });

    it('filters with = and reports totalCount and filterableFields', async () => {
      const res = await list(f(`name = "${PREFIX}05"`));
      assert.deepEqual(names(res), [`${PREFIX}05`]);
      assert.equal(res.body.meta.pagination.totalCount, 1);
      assert.ok(res.body.meta.filterableFields.includes('name'));
      assert.ok(res.body.meta.filterableFields.includes('roleAttributes'));
    });

    it('defaults to 10 per page, with the total of all matches', async () => {
      const res = await list(f(`name contains "${PREFIX}"`));
      assert.equal(res.body.data.length, 10);
      assert.deepEqual(res.body.meta.pagination, { limit: 10, offset: 0, totalCount: COUNT });
    });

    it('sorts and pages with sort by / skip / limit inside the filter', async () => {
      const res = await list(f(`name contains "${PREFIX}" sort by name desc skip 2 limit 3`));
      assert.deepEqual(names(res), [`${PREFIX}21`, `${PREFIX}20`, `${PREFIX}19`]);
      assert.equal(res.body.meta.pagination.offset, 2);
      assert.equal(res.body.meta.pagination.limit, 3);
    });

    it('lets filter limit/skip win over the query parameters', async () => {
      const res = await list(`${f(`name contains "${PREFIX}" sort by name limit 2`)}&limit=7&offset=5`);
      assert.deepEqual(names(res), [`${PREFIX}05`, `${PREFIX}06`]);
    });

    it('uses the sort parameter when the filter has no sort by', async () => {
      const res = await list(`${f(`name contains "${PREFIX}"`)}&sort=${encodeURIComponent('name desc')}&limit=2`);
      assert.deepEqual(names(res), [`${PREFIX}23`, `${PREFIX}22`]);
    });

    it('answers a bad sort parameter with INVALID_SORT_IDENTIFIER', async () => {
      const res = await list(`sort=${encodeURIComponent('nope desc')}`);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'INVALID_SORT_IDENTIFIER');
    });

    it('returns everything with limit=-1 and limit none', async () => {
      for (const query of [`${f(`name contains "${PREFIX}"`)}&limit=-1`, f(`name contains "${PREFIX}" limit none`)]) {
        const res = await list(query);
        assert.equal(res.body.data.length, COUNT);
        assert.match(res.text, /"limit":9223372036854775807/);
      }
    });

    it('clamps limit to 500 without an error', async () => {
      const res = await list('limit=100000');
      assert.equal(res.status, 200);
      assert.equal(res.body.meta.pagination.limit, 500);
    });

    it('answers a non-integer limit with INVALID_PAGINATION', async () => {
      const res = await list('limit=ten');
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'INVALID_PAGINATION');
      assert.equal(res.body.error.cause.field, 'limit');
    });

    it('answers a bad filter with INVALID_FILTER and the parser detail', async () => {
      const res = await list(f('name = "a" xyz'));
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'INVALID_FILTER');
      assert.equal(res.body.error.message, 'The filter query supplied is invalid');
      assert.match(res.body.error.cause.message, /line: 1 column:/);
    });

    it('refuses non-public and set-misused symbols', async () => {
      const hidden = await node().mgmt.get(`/authenticators?${f('passwordHash = "x"')}`, node().adminToken);
      assert.equal(hidden.status, 400);
      assert.match(hidden.body.error.cause.message, /unknown symbol 'passwordHash'/);
      const set = await list(f('roleAttributes = "q"'));
      assert.equal(set.status, 400);
      assert.match(set.body.error.cause.message, /set symbol/);
    });

    it('supports anyOf / allOf / isEmpty on role attributes', async () => {
      const any = await list(`${f(`anyOf(roleAttributes) = "even" and name contains "${PREFIX}"`)}&limit=-1`);
      assert.equal(any.body.data.length, COUNT / 2);
      const all = await list(`${f(`allOf(roleAttributes) in ["odd", "q"] and name contains "${PREFIX}"`)}&limit=-1`);
      assert.equal(all.body.data.length, COUNT / 2);
      const empty = await list(`${f(`isEmpty(roleAttributes) and name contains "${PREFIX}"`)}`);
      assert.equal(empty.body.meta.pagination.totalCount, 0);
    });

    it('filters on tags, booleans, in, between and datetime()', async () => {
      const eu = await list(`${f(`tags.region = "eu" and name contains "${PREFIX}"`)}&limit=-1`);
      assert.equal(eu.body.data.length, 12);
      const admins = await list(`${f(`isAdmin = true and name contains "${PREFIX}"`)}&limit=-1`);
      assert.equal(admins.body.data.length, COUNT / 4);
      const inList = await list(f(`name in ["${PREFIX}01", "${PREFIX}02", "nope"] sort by name`));
      assert.deepEqual(names(inList), [`${PREFIX}01`, `${PREFIX}02`]);
      const between = await list(f(`tags.n between 3 and 5 and name contains "${PREFIX}" sort by name`));
      assert.deepEqual(names(between), [`${PREFIX}03`, `${PREFIX}04`]);
      const recent = await list(f(`createdAt > datetime(2000-01-01T00:00:00Z) and name contains "${PREFIX}"`));
      assert.equal(recent.body.meta.pagination.totalCount, COUNT);
      const future = await list(f(`createdAt > datetime(2999-01-01T00:00:00Z)`));
      assert.equal(future.body.meta.pagination.totalCount, 0);
    });

    it('combines or, not and parentheses', async () => {
      const res = await list(f(`(name = "${PREFIX}01" or name = "${PREFIX}02") and not name = "${PREFIX}02"`));
      assert.deepEqual(names(res), [`${PREFIX}01`]);
    });

    it('sorts by several keys with id as the last tiebreaker', async () => {
      const res = await list(`${f(`name contains "${PREFIX}" sort by isAdmin desc, name asc`)}&limit=-1`);
      const got = names(res);
      assert.deepEqual(got.slice(0, 6), [`${PREFIX}00`, `${PREFIX}04`, `${PREFIX}08`, `${PREFIX}12`, `${PREFIX}16`, `${PREFIX}20`]);
      assert.equal(got[6], `${PREFIX}01`);
    });
  });
}
