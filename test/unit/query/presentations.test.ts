// Presentation is declaration data: each kind's computed wire fields are the presentations its
// declaration names (`present`), in that order; every presentation's decorators serve a kind
// that names it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RESOURCES } from '../../../src/domain/registry.js';
import type { PresentationName, ResourceDecl } from '../../../src/domain/resource.js';
import type { Decorator } from '../../../src/query/present.js';
import { declaredDecorators, PRESENTATIONS, type PresentationDeps } from '../../../src/query/presentations.js';
import type { Replica } from '../../../src/store/replica.js';

const deps = { reader: {} } as unknown as PresentationDeps;
const ctx = { replica: {} as Replica, viewer: {} };

describe('presentations', () => {
  it('wire a decorator for exactly the kinds whose declarations name a presentation', () => {
    const wired = declaredDecorators(deps);
    assert.deepEqual([...wired.keys()].sort(), RESOURCES.filter((d) => (d.present ?? []).length > 0).map((d) => d.kind).sort());
  });

  it('serve only kinds that name them (no decorator left unused)', () => {
    for (const [name, build] of Object.entries(PRESENTATIONS) as [PresentationName, (typeof PRESENTATIONS)[PresentationName]][]) {
      const kinds = Object.keys(build(deps));
      assert.ok(kinds.length > 0, name);
      for (const kind of kinds) {
        const decl = RESOURCES.find((d) => d.kind === kind);
        assert.ok(decl?.present?.includes(name), `${name} decorates ${kind}, whose declaration does not name it`);
      }
    }
  });

  it('run in the order the declaration lists them', async () => {
    const order: string[] = [];
    const decl = { kind: 'identities', present: ['mfa', 'entity-refs'] } as unknown as ResourceDecl;
    const stub = (label: string): Decorator => async () => void order.push(label);
    const table = { ...PRESENTATIONS, mfa: () => ({ identities: stub('mfa') }), 'entity-refs': () => ({ identities: stub('entity-refs') }) };
    await declaredDecorators(deps, [decl], table).get('identities')!({}, { id: 'i1' } as never, ctx);
    assert.deepEqual(order, ['mfa', 'entity-refs']);
  });

  it('refuses a declaration naming a presentation that has nothing for its kind', () => {
    const decl = { kind: 'configs', present: ['mfa'] } as unknown as ResourceDecl;
    assert.throws(() => declaredDecorators(deps, [decl]), /presentation mfa has no decorator for configs/);
  });
});
