// Actor choice is declaration data: a declaration names its own actor (`ownActor`), the factory's
// table maps the name to its class, and a kind without one gets the generic CatalogActor.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCatalogActor, createEntityActor, type ActorDeps } from '../../../src/actors/actor-factory.js';
import { CatalogActor } from '../../../src/actors/catalog-actor.js';
import { IdentityActor } from '../../../src/actors/identity-actor.js';
import { PostureCheckCatalog } from '../../../src/actors/posture-check-catalog.js';
import { RouterCatalog } from '../../../src/actors/router-catalog.js';
import { RESOURCES, resourceOf } from '../../../src/domain/registry.js';

/** Constructors only keep their dependencies: nothing here is called. */
const deps = { writer: {}, replica: {}, proposer: {}, pool: {}, nodeId: 'n1', baseUrl: 'https://localhost', signer: { caCertPem: '', caKeyPem: '' } } as unknown as ActorDeps;

describe('actor factory', () => {
  it('gives each declaration the actor it names', () => {
    assert.ok(createCatalogActor('posture-checks', deps) instanceof PostureCheckCatalog);
    assert.ok(createCatalogActor('routers', deps) instanceof RouterCatalog);
    assert.ok(createEntityActor(resourceOf('identities'), 'id-1', deps) instanceof IdentityActor);
  });

  it('gives a kind that names none the generic catalog actor (per entity for an entity family)', () => {
    const plain = createCatalogActor('identity-types', deps);
    assert.equal(plain.constructor, CatalogActor);
    assert.equal(createEntityActor(resourceOf('services'), 'svc-1', deps).constructor, CatalogActor);
  });

  it('builds an actor for every declared kind, each own actor named by one declaration only', () => {
    const named = RESOURCES.flatMap((decl) => (decl.ownActor ? [decl.ownActor] : []));
    assert.deepEqual(named.filter((name, i) => named.indexOf(name) !== i), []);
    for (const decl of RESOURCES) {
      const actor = decl.actor === 'entity' ? createEntityActor(decl, 'x', deps) : createCatalogActor(decl.kind, deps);
      assert.equal(decl.ownActor === undefined, actor.constructor === CatalogActor, decl.kind);
    }
  });

  it('refuses an entity actor for a catalog kind and a catalog for an unknown kind', () => {
    assert.throws(() => createEntityActor(resourceOf('configs'), 'x', deps));
    assert.throws(() => createCatalogActor('nope', deps));
  });
});
