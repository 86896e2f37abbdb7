// PROCESS and PROCESS_MULTI posture checks: running state, exact paths, hashes and signers
// compared case-insensitively against normalised reports, AllOf / AnyOf / OneOf.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyPostureResponse,
  emptyPostureData,
  evaluateCheck,
  evaluateProcess,
  evaluateProcessMulti,
  type PostureData,
  type ProcessMultiSpec,
} from '../../../../src/domain/posture/index.js';

const at = '2024-01-01T00:00:00.000Z';
const HASH_A = 'AB'.repeat(32);
const HASH_B = 'cd'.repeat(32);

function report(data: PostureData, id: string, path: string, opts: { running?: boolean; hash?: string; signers?: string[] } = {}): PostureData {
  return applyPostureResponse(
    data,
    { id, typeId: 'PROCESS', path, isRunning: opts.running ?? true, hash: opts.hash ?? '', signerFingerprints: opts.signers ?? [] },
    [],
    at,
  );
}

const spec = (path: string, hashes: string[] = [], signerFingerprints: string[] = []): ProcessMultiSpec => ({ osType: 'Linux', path, hashes, signerFingerprints });

describe('process reports', () => {
  it('are normalised: lowercase hex with separators removed', () => {
    const data = report(emptyPostureData(), 'p', '/bin/a', { hash: HASH_A.toUpperCase(), signers: ['AA:BB:CC'] });
    assert.equal(data.processes[0]!.hash, HASH_A.toLowerCase());
    assert.deepEqual(data.processes[0]!.signerFingerprints, ['aabbcc']);
    assert.equal(data.processByPath['/bin/a'], data.processes[0]);
  });

  it('replace the earlier report for the same check id', () => {
    let data = report(emptyPostureData(), 'p', '/bin/a', { running: false });
    data = report(data, 'p', '/bin/a', { running: true });
    assert.equal(data.processes.length, 1);
    assert.equal(data.processes[0]!.isRunning, true);
  });
});

describe('PROCESS (legacy)', () => {
  it('passes a running process with an allowed hash (any case) and the signer', () => {
    const data = report(emptyPostureData(), 'chk', 'C:\\agent.exe', { hash: HASH_A, signers: ['FF:01'] });
    assert.equal(evaluateProcess('chk', { osType: 'Windows', path: 'C:\\agent.exe', hashes: [HASH_A.toLowerCase()], signerFingerprint: 'FF01' }, data).passing, true);
  });

  it('fails when not running, with another hash or signer, or when another check id answered', () => {
    const process = { osType: 'Windows' as const, path: 'C:\\agent.exe', hashes: [HASH_A] };
    assert.equal(evaluateProcess('chk', process, report(emptyPostureData(), 'chk', 'C:\\agent.exe', { running: false, hash: HASH_A })).passing, false);
    assert.equal(evaluateProcess('chk', process, report(emptyPostureData(), 'chk', 'C:\\agent.exe', { hash: HASH_B })).passing, false);
    assert.equal(evaluateProcess('chk', { ...process, signerFingerprint: 'ee' }, report(emptyPostureData(), 'chk', 'C:\\agent.exe', { hash: HASH_A, signers: ['ff'] })).passing, false);
    assert.equal(evaluateProcess('chk', process, report(emptyPostureData(), 'other', 'C:\\agent.exe', { hash: HASH_A })).passing, false);
  });

  it('reports the actual process values on failure', () => {
    const data = report(emptyPostureData(), 'chk', '/bin/x', { running: false, hash: HASH_B });
    const result = evaluateCheck({ id: 'chk', name: 'p', typeId: 'PROCESS', process: { osType: 'Linux', path: '/bin/x', hashes: [HASH_A] } }, data, 'api', 0);
    assert.equal(result.passing, false);
    assert.deepEqual(result.failure?.actualValue, { isRunning: false, hash: HASH_B, signerFingerprints: [] });
    assert.deepEqual(result.failure?.expectedValue, { osType: 'Linux', path: '/bin/x', hashes: [HASH_A] });
  });
});

describe('PROCESS_MULTI', () => {
  const data = () => {
    let d = report(emptyPostureData(), 'x', '/bin/a', { hash: HASH_A, signers: ['0A:0B'] });
    d = report(d, 'y', '/bin/b', { hash: HASH_B });
    d = report(d, 'z', '/bin/stopped', { running: false, hash: HASH_A });
    return d;
  };

  it('AllOf passes only when every process is satisfied', () => {
    assert.equal(evaluateProcessMulti('AllOf', [spec('/bin/a', [HASH_A]), spec('/bin/b', [HASH_B.toUpperCase()])], data()).passing, true);
    assert.equal(evaluateProcessMulti('AllOf', [spec('/bin/a'), spec('/bin/missing')], data()).passing, false);
    assert.equal(evaluateProcessMulti('AllOf', [spec('/bin/a'), spec('/bin/stopped')], data()).passing, false);
  });

  it('AnyOf and OneOf pass when one process is satisfied', () => {
    for (const semantic of ['AnyOf', 'OneOf']) {
      assert.equal(evaluateProcessMulti(semantic, [spec('/bin/missing'), spec('/bin/b', [HASH_B])], data()).passing, true, semantic);
      assert.equal(evaluateProcessMulti(semantic, [spec('/bin/missing'), spec('/bin/stopped')], data()).passing, false, semantic);
    }
  });

  it('compares hashes and signers case-insensitively, with empty lists accepting any', () => {
    assert.equal(evaluateProcessMulti('AllOf', [spec('/bin/a', [HASH_A.toUpperCase()], ['0A0B'])], data()).passing, true);
    assert.equal(evaluateProcessMulti('AllOf', [spec('/bin/a', [], ['0a0b'])], data()).passing, true);
    assert.equal(evaluateProcessMulti('AllOf', [spec('/bin/a', [HASH_B])], data()).passing, false);
    assert.equal(evaluateProcessMulti('AllOf', [spec('/bin/a', [], ['ffff'])], data()).passing, false);
  });

  it('matches processes by exact, case-sensitive path', () => {
    assert.equal(evaluateProcessMulti('AnyOf', [spec('/BIN/A')], data()).passing, false);
  });

  it('reports the failing reports with their paths as actual values', () => {
    const result = evaluateCheck(
      { id: 'm', name: 'multi', typeId: 'PROCESS_MULTI', semantic: 'OneOf', processes: [spec('/bin/stopped'), spec('/bin/b', [HASH_A])] },
      data(),
      'api',
      0,
    );
    assert.equal(result.passing, false);
    assert.equal(result.failure?.semantic, 'OneOf');
    assert.deepEqual((result.failure?.actualValue as { path: string }[]).map((a) => a.path), ['/bin/stopped', '/bin/b']);
  });
});
