// OS posture checks: case-insensitive OS type, strict semver, blang-style ranges with `||` and
// space-separated comparators, and Windows build numbers in the patch.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateOs, isStrictSemver, versionSatisfies } from '../../../../src/domain/posture/index.js';
import type { OperatingSystem, OsReport } from '../../../../src/domain/posture/index.js';

const report = (type: string, version: string): OsReport => ({ postureCheckId: 'c', lastUpdatedAt: '2024-01-01T00:00:00.000Z', type, version, build: '' });
const windows = (versions: string[]): OperatingSystem[] => [{ type: 'Windows', versions }];

describe('versionSatisfies', () => {
  it('reads the Windows build number as the semver patch', () => {
    assert.equal(versionSatisfies('10.0.19041', ['>=10.0.19041']), true);
    assert.equal(versionSatisfies('10.0.19045', ['>=10.0.19041']), true);
    assert.equal(versionSatisfies('10.0.22631', ['>=10.0.19041']), true);
    assert.equal(versionSatisfies('10.0.18363', ['>=10.0.19041']), false);
    assert.equal(versionSatisfies('10.5.19041', ['>=10.0.19041']), true);
  });

  it('passes when any `||` alternative matches and ANDs space-separated comparators', () => {
    const range = ['>1.0.0 <2.0.0 || >=5.0.0'];
    assert.equal(versionSatisfies('1.5.0', range), true);
    assert.equal(versionSatisfies('5.2.1', range), true);
    assert.equal(versionSatisfies('2.0.0', range), false);
    assert.equal(versionSatisfies('1.0.0', range), false);
  });

  it('passes when any of several ranges matches', () => {
    assert.equal(versionSatisfies('3.0.0', ['<2.0.0', '>=3.0.0 <4.0.0']), true);
    assert.equal(versionSatisfies('2.5.0', ['<2.0.0', '>=3.0.0 <4.0.0']), false);
  });

  it('rejects versions that are not strict MAJOR.MINOR.PATCH', () => {
    for (const version of ['10.0', '10.0.19041.1234', 'v10.0.19041', ' 10.0.19041', '010.0.1', '']) {
      assert.equal(isStrictSemver(version), false, version);
      assert.equal(versionSatisfies(version, ['>=1.0.0']), false, version);
    }
  });

  it('compares pre-releases like blang and ignores build metadata', () => {
    assert.equal(versionSatisfies('10.0.19041-beta', ['>=10.0.0']), true);
    assert.equal(versionSatisfies('10.0.19041+22h2', ['>=10.0.19041']), true);
    assert.equal(versionSatisfies('1.0.0-rc.1', ['>=1.0.0']), false);
  });
});

describe('evaluateOs', () => {
  it('fails without a reported OS', () => {
    assert.equal(evaluateOs(windows([]), null), false);
  });

  it('matches the OS type case-insensitively and passes any version when none is listed', () => {
    assert.equal(evaluateOs(windows([]), report('WINDOWS', 'anything')), true);
    assert.equal(evaluateOs(windows([]), report('linux', '5.0.0')), false);
  });

  it('fails an unparsable reported version when versions are listed', () => {
    assert.equal(evaluateOs(windows(['>=10.0.0']), report('Windows', '10.0.19041.1')), false);
  });

  it('uses the last entry when an OS type is listed twice', () => {
    const both: OperatingSystem[] = [
      { type: 'Windows', versions: ['>=11.0.0'] },
      { type: 'Windows', versions: ['>=10.0.19041'] },
    ];
    assert.equal(evaluateOs(both, report('Windows', '10.0.19045')), true);
    assert.equal(evaluateOs([...both].reverse(), report('Windows', '10.0.19045')), false);
  });
});
