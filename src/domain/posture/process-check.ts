// PROCESS (legacy, one process) and PROCESS_MULTI posture checks: process entries, SHA-256
// hashes and the multi-process semantic. Pure.

import { fieldError } from '../../errors.js';
import { compareStrings } from '../query/index.js';
import { checkArray, checkOptionalStrings, checkOsType, checkRecord, checkString } from './body-checks.js';
import { PROCESS_SEMANTICS, type ProcessMultiSpec, type ProcessSemantic, type ProcessSpec } from './posture-types.js';

const SHA256_HEX = /^[0-9a-f]{64}$/i;

/** The legacy `process`: osType and path required; hashes (SHA-256 hex) and one signer optional. */
export function checkProcess(value: unknown): ProcessSpec {
  const entry = checkRecord('process', value ?? null);
  const spec: ProcessSpec = {
    osType: checkOsType('process.osType', entry.osType),
    path: checkString('process.path', entry.path, true),
    hashes: checkHashes('process.hashes', entry.hashes),
  };
  if (entry.signerFingerprint !== undefined && entry.signerFingerprint !== null && entry.signerFingerprint !== '') {
    spec.signerFingerprint = checkString('process.signerFingerprint', entry.signerFingerprint);
  }
  return spec;
}

export function checkSemantic(value: unknown): ProcessSemantic {
  if (value === undefined || value === null) throw fieldError('semantic', null, 'semantic is required');
  if (typeof value !== 'string' || !(PROCESS_SEMANTICS as readonly string[]).includes(value)) {
    throw fieldError('semantic', value, `semantic must be one of ${PROCESS_SEMANTICS.join(', ')}`);
  }
  return value as ProcessSemantic;
}

/**
 * The PROCESS_MULTI `processes`: a non-empty list. Stored as upstream's store keeps them: one
 * entry per `<osType>-<path>` (a later duplicate replaces an earlier one), in key order.
 */
export function checkProcesses(value: unknown): ProcessMultiSpec[] {
  const byKey = new Map<string, ProcessMultiSpec>();
  checkArray('processes', value, 1).forEach((item, i) => {
    const spec = checkProcessMulti(item, `processes[${i}]`);
    byKey.set(`${spec.osType}-${spec.path}`, spec);
  });
  return [...byKey.entries()].sort(([a], [b]) => compareStrings(a, b)).map(([, spec]) => spec);
}

function checkProcessMulti(value: unknown, path: string): ProcessMultiSpec {
  const entry = checkRecord(path, value);
  return {
    osType: checkOsType(`${path}.osType`, entry.osType),
    path: checkString(`${path}.path`, entry.path, true),
    hashes: checkHashes(`${path}.hashes`, entry.hashes),
    signerFingerprints: checkOptionalStrings(`${path}.signerFingerprints`, entry.signerFingerprints),
  };
}

/** SHA-256 hex digests (64 hex digits, any case); stored as given, compared case-insensitively. */
function checkHashes(path: string, value: unknown): string[] {
  const hashes = checkOptionalStrings(path, value);
  hashes.forEach((hash, i) => {
    if (!SHA256_HEX.test(hash)) throw fieldError(`${path}[${i}]`, hash, 'hashes must be SHA-256 digests of 64 hex digits');
  });
  return hashes;
}
