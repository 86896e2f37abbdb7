// The gateway loads the web globals Koa asks about before answering a stream body (Node loads
// them, its bundled undici among them, on first use): a streamed list never pays for the load.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';

const APP = new URL('../../../src/gateway/app.js', import.meta.url).href;
const BUS = new URL('../../../src/bus/memory-bus.js', import.meta.url).href;

/** Whether Node's bundled undici is loaded in a fresh process, before and after createGateway. */
function undiciLoaded(): { before: boolean; after: boolean } {
  const script = `
    const loaded = () => process.moduleLoadList.includes('NativeModule internal/deps/undici/undici');
    const { createGateway } = await import(${JSON.stringify(APP)});
    const { MemoryBus } = await import(${JSON.stringify(BUS)});
    const before = loaded();
    createGateway({ bus: new MemoryBus(), nodeId: 'n1', scope: { node: 'n1' }, baseUrl: () => 'https://127.0.0.1:1', logError: () => undefined });
    console.log(JSON.stringify({ before, after: loaded() }));
  `;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as { before: boolean; after: boolean };
}

describe('createGateway', () => {
  it('loads Response (Node\'s bundled undici) while the node starts, not on the first streamed answer', () => {
    const { before, after } = undiciLoaded();
    assert.equal(before, false, 'importing the gateway does not load it already');
    assert.equal(after, true);
  });
});
