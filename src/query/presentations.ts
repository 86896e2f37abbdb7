// The presentations a declaration may name (`present` in src/domain/resource.ts), each mapped to
// its decorators, and the presenter wired from the declarations: a kind's computed fields run in
// the order its declaration lists them. The compiler checks that every name has decorators.

import { RESOURCES } from '../domain/registry.js';
import type { PresentationName, ResourceDecl } from '../domain/resource.js';
import type { AccessReader } from '../store/access-reader.js';
import type { Replica } from '../store/replica.js';
import { accessDecorators } from './access-decorators.js';
import { decorateConfig, decorateServiceConfigs } from './config-queries.js';
import { credentialDecorators } from './credential-queries.js';
import { enrollmentDecorators } from './enrollment-queries.js';
import { mfaDecorators } from './mfa-queries.js';
import { entityRefDecorators, Presenter, type Decorator, type Decorators } from './present.js';
import { presentPostureCheck } from './present-posture-checks.js';
import { routerDecorators, type PresenceView } from './present-routers.js';
import { sessionDecorators } from './present-sessions.js';

/** What presentations read besides the record: the access model and router presence. */
export interface PresentationDeps {
  reader: AccessReader;
  presence?: PresenceView;
}

export type Presentations = Readonly<Record<PresentationName, (deps: PresentationDeps) => Decorators>>;

export const PRESENTATIONS: Presentations = {
  'entity-refs': () => entityRefDecorators(),
  access: ({ reader }) => accessDecorators(reader),
  'router-presence': ({ presence }) => routerDecorators(presence),
  sessions: ({ reader, presence }) => sessionDecorators(reader, presence),
  'posture-checks': () => ({ 'posture-checks': presentPostureCheck }),
  configs: () => ({ services: decorateServiceConfigs, configs: decorateConfig }),
  credentials: () => credentialDecorators(),
  enrollments: () => enrollmentDecorators(),
  mfa: () => mfaDecorators(),
};

/** Each declared kind's decorators, chained in its declaration's order. Throws when a
 * declaration names a presentation that has nothing for its kind. */
export function declaredDecorators(
  deps: PresentationDeps,
  resources: readonly ResourceDecl[] = RESOURCES,
  presentations: Presentations = PRESENTATIONS,
): Map<string, Decorator> {
  const built = new Map<PresentationName, Decorators>();
  const decoratorsOf = (name: PresentationName) => {
    let decorators = built.get(name);
    if (!decorators) built.set(name, (decorators = presentations[name](deps)));
    return decorators;
  };
  const out = new Map<string, Decorator>();
  for (const decl of resources) {
    const chain = (decl.present ?? []).map((name) => {
      const decorator = decoratorOf(decoratorsOf(name), decl.kind);
      if (!decorator) throw new Error(`presentation ${name} has no decorator for ${decl.kind}`);
      return decorator;
    });
    if (chain.length === 1) out.set(decl.kind, chain[0]!);
    else if (chain.length > 1) {
      out.set(decl.kind, async (wire, record, ctx) => {
        for (const decorator of chain) await decorator(wire, record, ctx);
      });
    }
  }
  return out;
}

function decoratorOf(decorators: Decorators, kind: string): Decorator | undefined {
  return (decorators as Record<string, Decorator | undefined>)[kind];
}

/** The presenter of the declared kinds. */
export function createPresenter(replica: Replica, deps: PresentationDeps): Presenter {
  return new Presenter(replica, declaredDecorators(deps));
}
