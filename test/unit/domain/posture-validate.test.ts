// Posture check typed-field validation and normalisation (BEHAVIOR.md §3.1): one rule per test,
// each error asserted by its code and cause.field.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkTypeIdUnchanged,
  evaluationSemantic,
  isValidVersionRange,
  normaliseMac,
  validatePostureFields,
} from '../../../src/domain/posture/index.js';
import { ApiError } from '../../../src/errors.js';

const HASH = 'a'.repeat(64);

/** Asserts a 400 COULD_NOT_VALIDATE whose cause names `field`. */
function rejects(fn: () => unknown, field: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.code, 'COULD_NOT_VALIDATE');
    assert.equal(err.status, 400);
    assert.equal((err.apiCause as { field: string }).field, field);
    return true;
  });
}

describe('posture OS checks', () => {
  it('accepts OS entries with blang-style ranges', () => {
    const body = { operatingSystems: [{ type: 'Windows', versions: ['>=10.0.19041', '>1.0.0 <2.0.0'] }, { type: 'macOS', versions: ['11.2.3'] }] };
    assert.deepEqual(validatePostureFields('OS', body, 'create'), body);
  });

  it('accepts ranges joined with ||', () => {
    const body = { operatingSystems: [{ type: 'Linux', versions: ['>=5.4.0 <5.5.0 || >=6.1.0'] }] };
    assert.deepEqual(validatePostureFields('OS', body, 'create'), body);
  });

  it('reads absent versions as any version', () => {
    const out = validatePostureFields('OS', { operatingSystems: [{ type: 'Android' }] }, 'create');
    assert.deepEqual(out, { operatingSystems: [{ type: 'Android', versions: [] }] });
  });

  it('rejects an invalid range on operatingSystems[<os>][<index>]', () => {
    const body = { operatingSystems: [{ type: 'Linux', versions: [] }, { type: 'Windows', versions: ['>=10.0.0', 'not-a-range'] }] };
    rejects(() => validatePostureFields('OS', body, 'create'), 'operatingSystems[Windows][1]');
  });

  it('rejects a blank || alternative (node-semver would read it as *)', () => {
    rejects(() => validatePostureFields('OS', { operatingSystems: [{ type: 'iOS', versions: ['>=14.0.0 ||'] }] }, 'create'), 'operatingSystems[iOS][0]');
  });

  it('rejects a blank range', () => {
    rejects(() => validatePostureFields('OS', { operatingSystems: [{ type: 'iOS', versions: [' '] }] }, 'patch'), 'operatingSystems[iOS][0]');
  });

  it('rejects an empty operatingSystems list', () => {
    rejects(() => validatePostureFields('OS', { operatingSystems: [] }, 'create'), 'operatingSystems');
  });

  it('rejects an unknown OS type', () => {
    rejects(() => validatePostureFields('OS', { operatingSystems: [{ type: 'windows', versions: [] }] }, 'create'), 'operatingSystems[0].type');
  });

  it('requires operatingSystems on replace', () => {
    rejects(() => validatePostureFields('OS', {}, 'replace'), 'operatingSystems');
  });

  it('sets nothing on a patch that omits operatingSystems', () => {
    assert.deepEqual(validatePostureFields('OS', { name: 'x' }, 'patch'), {});
  });

  it('checks ranges with node-semver validRange semantics', () => {
    for (const ok of ['>=10.0.19041', '>1.0.0 <2.0.0', '1.2.3 || >=2.0.0']) assert.equal(isValidVersionRange(ok), true, ok);
    for (const bad of ['', 'abc', '>=10.0.19041 foo', '|| 1.0.0']) assert.equal(isValidVersionRange(bad), false, bad);
  });
});

describe('posture MAC checks', () => {
  it('normalises AA:BB:CC:00:11:22 to aabbcc001122', () => {
    assert.deepEqual(validatePostureFields('MAC', { macAddresses: ['AA:BB:CC:00:11:22'] }, 'create'), { macAddresses: ['aabbcc001122'] });
  });

  it('strips every non-hex character', () => {
    assert.equal(normaliseMac('aa-bb.cc 00:11_22'), 'aabbcc001122');
  });

  it('rejects an address that is not 12 hex digits once normalised', () => {
    rejects(() => validatePostureFields('MAC', { macAddresses: ['aabbcc001122', 'AA:BB:CC:00:11'] }, 'create'), 'macAddresses[1]');
  });

  it('rejects an empty macAddresses list', () => {
    rejects(() => validatePostureFields('MAC', { macAddresses: [] }, 'create'), 'macAddresses');
  });

  it('requires macAddresses on create', () => {
    rejects(() => validatePostureFields('MAC', {}, 'create'), 'macAddresses');
  });
});

describe('posture DOMAIN checks', () => {
  it('accepts domain names as given', () => {
    assert.deepEqual(validatePostureFields('DOMAIN', { domains: ['Corp.Example', 'lab'] }, 'create'), { domains: ['Corp.Example', 'lab'] });
  });

  it('rejects an empty domains list', () => {
    rejects(() => validatePostureFields('DOMAIN', { domains: [] }, 'create'), 'domains');
  });

  it('rejects an empty domain name', () => {
    rejects(() => validatePostureFields('DOMAIN', { domains: ['corp', ''] }, 'create'), 'domains[1]');
  });

  it('rejects domains that is not a list', () => {
    rejects(() => validatePostureFields('DOMAIN', { domains: 'corp' }, 'patch'), 'domains');
  });
});

describe('posture PROCESS checks', () => {
  it('accepts a legacy process with hashes and a signer', () => {
    const process = { osType: 'Windows', path: 'C:\\a.exe', hashes: [HASH], signerFingerprint: 'ff00' };
    assert.deepEqual(validatePostureFields('PROCESS', { process }, 'create'), { process });
  });

  it('defaults legacy hashes to an empty list', () => {
    const out = validatePostureFields('PROCESS', { process: { osType: 'Linux', path: '/usr/bin/a' } }, 'create');
    assert.deepEqual(out, { process: { osType: 'Linux', path: '/usr/bin/a', hashes: [] } });
  });

  it('requires process.path', () => {
    rejects(() => validatePostureFields('PROCESS', { process: { osType: 'Linux' } }, 'create'), 'process.path');
  });

  it('rejects a legacy hash that is not SHA-256', () => {
    rejects(() => validatePostureFields('PROCESS', { process: { osType: 'Linux', path: '/a', hashes: ['abc'] } }, 'create'), 'process.hashes[0]');
  });
});

describe('posture PROCESS_MULTI checks', () => {
  const proc = (path: string, extra: Record<string, unknown> = {}) => ({ osType: 'Linux', path, ...extra });

  it('accepts AllOf with processes, filling empty hash and signer lists', () => {
    const out = validatePostureFields('PROCESS_MULTI', { semantic: 'AllOf', processes: [proc('/bin/a')] }, 'create');
    assert.deepEqual(out, { semantic: 'AllOf', processes: [{ osType: 'Linux', path: '/bin/a', hashes: [], signerFingerprints: [] }] });
  });

  it('accepts OneOf as given, evaluated as AnyOf', () => {
    const out = validatePostureFields('PROCESS_MULTI', { semantic: 'OneOf', processes: [proc('/bin/a')] }, 'create');
    assert.equal(out.semantic, 'OneOf');
    assert.equal(evaluationSemantic('OneOf'), 'AnyOf');
    assert.equal(evaluationSemantic('AllOf'), 'AllOf');
  });

  it('rejects an unknown semantic', () => {
    rejects(() => validatePostureFields('PROCESS_MULTI', { semantic: 'NoneOf', processes: [proc('/a')] }, 'create'), 'semantic');
  });

  it('requires semantic on create', () => {
    rejects(() => validatePostureFields('PROCESS_MULTI', { processes: [proc('/a')] }, 'create'), 'semantic');
  });

  it('requires each process path', () => {
    rejects(() => validatePostureFields('PROCESS_MULTI', { semantic: 'AnyOf', processes: [{ osType: 'Linux', path: '' }] }, 'create'), 'processes[0].path');
  });

  it('accepts SHA-256 hashes in any case', () => {
    const out = validatePostureFields('PROCESS_MULTI', { semantic: 'AnyOf', processes: [proc('/a', { hashes: [HASH.toUpperCase()] })] }, 'create');
    assert.deepEqual((out.processes as { hashes: string[] }[])[0]!.hashes, [HASH.toUpperCase()]);
  });

  it('rejects a hash that is not 64 hex digits', () => {
    const body = { semantic: 'AnyOf', processes: [proc('/a'), proc('/b', { hashes: [HASH, 'g'.repeat(64)] })] };
    rejects(() => validatePostureFields('PROCESS_MULTI', body, 'create'), 'processes[1].hashes[1]');
  });

  it('keeps one process per osType and path, in key order', () => {
    const body = { semantic: 'AnyOf', processes: [proc('/z'), { osType: 'Windows', path: 'C:\\a' }, proc('/a'), proc('/z', { signerFingerprints: ['s'] })] };
    const out = validatePostureFields('PROCESS_MULTI', body, 'create').processes as { osType: string; path: string; signerFingerprints: string[] }[];
    assert.deepEqual(out.map((p) => `${p.osType}-${p.path}`), ['Linux-/a', 'Linux-/z', 'Windows-C:\\a']);
    assert.deepEqual(out[1]!.signerFingerprints, ['s']);
  });

  it('rejects an empty processes list', () => {
    rejects(() => validatePostureFields('PROCESS_MULTI', { semantic: 'AnyOf', processes: [] }, 'patch'), 'processes');
  });
});

describe('posture MFA checks', () => {
  it('defaults every MFA field on create', () => {
    const out = validatePostureFields('MFA', {}, 'create');
    assert.deepEqual(out, { timeoutSeconds: -1, promptOnWake: false, promptOnUnlock: false, ignoreLegacyEndpoints: false });
  });

  it('stores a zero timeout as -1 (no timeout)', () => {
    assert.equal(validatePostureFields('MFA', { timeoutSeconds: 0 }, 'create').timeoutSeconds, -1);
  });

  it('stores a negative timeout as -1', () => {
    assert.equal(validatePostureFields('MFA', { timeoutSeconds: -30 }, 'patch').timeoutSeconds, -1);
  });

  it('keeps a positive timeout', () => {
    assert.equal(validatePostureFields('MFA', { timeoutSeconds: 300 }, 'create').timeoutSeconds, 300);
  });

  it('rejects a timeout that is not an integer', () => {
    rejects(() => validatePostureFields('MFA', { timeoutSeconds: 1.5 }, 'create'), 'timeoutSeconds');
  });

  it('rejects a promptOnWake that is not a boolean', () => {
    rejects(() => validatePostureFields('MFA', { promptOnWake: 'yes' }, 'create'), 'promptOnWake');
  });

  it('sets only the fields present on patch', () => {
    assert.deepEqual(validatePostureFields('MFA', { promptOnUnlock: true }, 'patch'), { promptOnUnlock: true });
  });
});

describe('posture check typeId', () => {
  it('keeps the stored type when the body omits typeId', () => {
    assert.equal(checkTypeIdUnchanged({}, 'MAC'), 'MAC');
  });

  it('accepts the stored type repeated', () => {
    assert.equal(checkTypeIdUnchanged({ typeId: 'MAC' }, 'MAC'), 'MAC');
  });

  it('refuses a different type', () => {
    rejects(() => checkTypeIdUnchanged({ typeId: 'OS' }, 'MAC'), 'typeId');
  });

  it('ignores fields of other check types', () => {
    const out = validatePostureFields('DOMAIN', { domains: ['corp'], macAddresses: ['zz'], timeoutSeconds: 'x' }, 'create');
    assert.deepEqual(out, { domains: ['corp'] });
  });
});
