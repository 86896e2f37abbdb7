// Runs every API suite against one node; the bus-specific test files choose how it starts.

import { after, before, describe } from 'node:test';
import type { TestNode } from '../../support/test-node.js';
import { accessSuite } from './access.js';
import { authSuite } from './auth.js';
import { conformanceSuite } from './conformance.js';
import { identitiesSuite } from './identities.js';
import { infoSuite } from './info.js';
import { queriesSuite } from './queries.js';
import { wireSuite } from './wire.js';

export function runApiSuites(label: string, start: () => Promise<TestNode>, cleanup?: () => Promise<void>): void {
  describe(label, () => {
    let node: TestNode | undefined;
    before(async () => {
      node = await start();
    });
    after(async () => {
      await node?.close();
      await cleanup?.();
    });
    const current = () => {
      if (!node) throw new Error('node not started');
      return node;
    };
    wireSuite(current);
    authSuite(current);
    identitiesSuite(current);
    queriesSuite(current);
    infoSuite(current);
    accessSuite(current);
    conformanceSuite(current);
  });
}
