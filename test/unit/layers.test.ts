// The layering test: reads every .ts file under src/, builds the relative import graph and fails
// on any edge the layer rules forbid, and on any reader of process.env / argv but src/config.ts.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  areaEdges,
  cycles,
  forbiddenEdges,
  importSpecifiers,
  readsProcessGlobals,
  resolveSpecifier,
  type ImportEdge,
} from '../support/layer-rules.js';

// Compiled to dist/test/unit/layers.test.js: the repo root is three levels up.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

const repoPath = (abs: string): string => relative(ROOT, abs).split(sep).join('/');

function readSources(): { path: string; text: string }[] {
  return sourceFiles(join(ROOT, 'src')).map((abs) => ({ path: repoPath(abs), text: readFileSync(abs, 'utf8') }));
}

function importEdges(files: { path: string; text: string }[]): ImportEdge[] {
  return files.flatMap(({ path, text }) => importSpecifiers(text).map((spec) => ({ from: path, to: resolveSpecifier(path, spec) })));
}

describe('layers', () => {
  it('src/ has no forbidden import edge', () => {
    const files = readSources();
    assert.ok(files.length > 10, `expected the src/ tree under ${ROOT}, found ${files.length} files`);
    const edges = importEdges(files);
    assert.ok(edges.length > 10, 'the import graph was read');
    const bad = forbiddenEdges(edges);
    assert.deepEqual(bad, [], `forbidden import edges:\n  ${bad.join('\n  ')}`);
  });

  it('src/ folders import each other in no cycle', () => {
    const loops = cycles(areaEdges(importEdges(readSources())));
    assert.deepEqual(loops, [], `folders that import each other:\n  ${loops.join('\n  ')}`);
  });

  it('src/ has no import cycle between files, type-only imports included', () => {
    const loops = cycles(importEdges(readSources()));
    assert.deepEqual(loops, [], `files that import each other:\n  ${loops.join('\n  ')}`);
  });

  it('only src/config.ts reads process.env or process.argv', () => {
    const readers = readSources()
      .filter(({ path, text }) => path !== 'src/config.ts' && readsProcessGlobals(text))
      .map(({ path }) => path);
    assert.deepEqual(readers, [], `process.env / process.argv read outside src/config.ts:\n  ${readers.join('\n  ')}`);
  });
});

describe('layer rules (the checker itself)', () => {
  it('reports every forbidden edge of a synthetic graph and nothing else', () => {
    const edges: ImportEdge[] = [
      { from: 'src/domain/a.ts', to: 'src/domain/b.ts' },
      { from: 'src/domain/a.ts', to: 'src/errors.ts' },
      { from: 'src/domain/a.ts', to: 'src/store/replica.ts' },
      { from: 'src/domain/a.ts', to: 'src/config.ts' },
      { from: 'src/workers/w.ts', to: 'src/domain/b.ts' },
      { from: 'src/workers/w.ts', to: 'src/actors/x.ts' },
      { from: 'src/gateway/app.ts', to: 'src/bus/bus.ts' },
      { from: 'src/gateway/app.ts', to: 'src/config.ts' },
      { from: 'src/gateway/routes/r.ts', to: 'src/store/replica.ts' },
      { from: 'src/gateway/app.ts', to: 'src/log/log.ts' },
      { from: 'src/gateway/app.ts', to: 'src/actors/actor-host.ts' },
      { from: 'src/gateway/app.ts', to: 'src/workers/pool.ts' },
      { from: 'src/store/replica.ts', to: 'src/log/log.ts' },
      { from: 'src/store/replica.ts', to: 'src/bus/bus.ts' },
      { from: 'src/log/local-log.ts', to: 'src/gateway/app.ts' },
      { from: 'src/log/local-log.ts', to: 'src/rpc/grpc-server.ts' },
      { from: 'src/bus/nats-bus.ts', to: 'src/errors.ts' },
      { from: 'src/bus/nats-bus.ts', to: 'src/domain/commands.ts' },
      { from: 'src/actors/actor-host.ts', to: 'src/main.ts' },
      { from: 'src/main.ts', to: 'src/gateway/app.ts' },
      { from: 'src/actors/actor-host.ts', to: 'src/store/replica.ts' },
      { from: 'src/query/query-handler.ts', to: 'src/store/replica.ts' },
      { from: 'src/query/query-handler.ts', to: 'src/protocol/v1/query-messages.ts' },
      { from: 'src/query/query-handler.ts', to: 'src/actors/session-keeper.ts' },
      { from: 'src/query/present.ts', to: 'src/log/log.ts' },
      { from: 'src/protocol/v1/query-messages.ts', to: 'src/domain/registry.ts' },
      { from: 'src/rpc/posture-service.ts', to: 'src/store/replica.ts' },
      { from: 'src/rpc/posture-service.ts', to: 'src/actors/router-presence.ts' },
      { from: 'src/rpc/posture-service.ts', to: 'src/gateway/node-client.ts' },
      { from: 'src/ops/integrity-runner.ts', to: 'src/actors/proposer.ts' },
      { from: 'src/ops/request-observer.ts', to: 'src/gateway/app.ts' },
      { from: 'src/actors/actor-factory.ts', to: 'src/ops/node-metrics.ts' },
      { from: 'src/actors/identity-actor.ts', to: 'src/gateway/node-client.ts' },
      { from: 'src/actors/identity-actor.ts', to: 'src/cluster/membership.ts' },
    ];
    assert.deepEqual(forbiddenEdges(edges), [
      'src/domain/a.ts -> src/store/replica.ts',
      'src/domain/a.ts -> src/config.ts',
      'src/workers/w.ts -> src/actors/x.ts',
      'src/gateway/routes/r.ts -> src/store/replica.ts',
      'src/gateway/app.ts -> src/log/log.ts',
      'src/gateway/app.ts -> src/actors/actor-host.ts',
      'src/gateway/app.ts -> src/workers/pool.ts',
      'src/store/replica.ts -> src/bus/bus.ts',
      'src/log/local-log.ts -> src/gateway/app.ts',
      'src/log/local-log.ts -> src/rpc/grpc-server.ts',
      'src/bus/nats-bus.ts -> src/domain/commands.ts',
      'src/actors/actor-host.ts -> src/main.ts',
      'src/query/query-handler.ts -> src/actors/session-keeper.ts',
      'src/query/present.ts -> src/log/log.ts',
      'src/protocol/v1/query-messages.ts -> src/domain/registry.ts',
      'src/rpc/posture-service.ts -> src/actors/router-presence.ts',
      'src/rpc/posture-service.ts -> src/gateway/node-client.ts',
      'src/ops/integrity-runner.ts -> src/actors/proposer.ts',
      'src/actors/identity-actor.ts -> src/gateway/node-client.ts',
      'src/actors/identity-actor.ts -> src/cluster/membership.ts',
    ]);
  });

  it('finds every cycle of a synthetic graph, self-imports included, and nothing else', () => {
    const edges: ImportEdge[] = [
      { from: 'a', to: 'b' },
      { from: 'b', to: 'c' },
      { from: 'c', to: 'a' },
      { from: 'c', to: 'd' },
      { from: 'd', to: 'e' },
      { from: 'e', to: 'd' },
      { from: 'f', to: 'f' },
      { from: 'g', to: 'a' },
    ];
    assert.deepEqual(cycles(edges), ['a <-> b <-> c', 'd <-> e', 'f']);
  });

  it('reduces file edges to folder edges, dropping a folder\'s edges to itself', () => {
    const edges: ImportEdge[] = [
      { from: 'src/store/replica.ts', to: 'src/log/log.ts' },
      { from: 'src/store/apply.ts', to: 'src/log/local-log.ts' },
      { from: 'src/store/apply.ts', to: 'src/store/keys.ts' },
      { from: 'src/log/local-log.ts', to: 'src/store/kv.ts' },
    ];
    assert.deepEqual(areaEdges(edges), [{ from: 'store/', to: 'log/' }, { from: 'log/', to: 'store/' }]);
    assert.deepEqual(cycles(areaEdges(edges)), ['log/ <-> store/']);
  });

  it('finds static, type-only, re-export and dynamic imports but not commented ones', () => {
    const source = [
      "import { a, type B } from './a.js';",
      "import type {\n  C,\n} from '../store/c.js';",
      "import * as d from '../d.js';",
      "import './side-effect.js';",
      "export { e } from './e.js';",
      "export * from './f.js';",
      "const g = await import('../g.js');",
      "import { readFileSync } from 'node:fs';",
      "// import { h } from './h.js';",
      "/* import { i } from './i.js'; */",
      "const url = 'nats://x'; import { j } from './j.js';",
    ].join('\n');
    assert.deepEqual(importSpecifiers(source).sort(), [
      '../d.js', '../g.js', '../store/c.js', './a.js', './e.js', './f.js', './j.js', './side-effect.js',
    ]);
  });

  it('resolves specifiers to repo paths with .ts extensions', () => {
    assert.equal(resolveSpecifier('src/actors/query/present.ts', '../../store/replica.js'), 'src/store/replica.ts');
    assert.equal(resolveSpecifier('src/gateway/app.ts', './routes/identities.js'), 'src/gateway/routes/identities.ts');
  });

  it('detects process.env and process.argv in code, not in comments', () => {
    assert.equal(readsProcessGlobals('const x = process.env.WEFT_LISTEN;'), true);
    assert.equal(readsProcessGlobals('main(process.argv.slice(2));'), true);
    assert.equal(readsProcessGlobals("const e = process['env'];"), true);
    assert.equal(readsProcessGlobals('const { env } = process;'), true);
    assert.equal(readsProcessGlobals('// reads process.env only in config.ts\nconst x = 1;'), false);
    assert.equal(readsProcessGlobals('process.exitCode = 1;'), false);
  });
});
