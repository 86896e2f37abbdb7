// Validation of posture response bodies (`POST /posture-response` and `-bulk`, and the same
// shapes on the gRPC stream): typeId selects the shape. Pure; errors are 400 with a field path.

import { fieldError } from '../../errors.js';
import { checkArray, checkBoolean, checkRecord, checkString } from './body-checks.js';
import { POSTURE_RESPONSE_TYPES, type PostureResponse } from './posture-data.js';

/** One response. `at` prefixes field paths (`[3].` inside a bulk body). */
export function parsePostureResponse(value: unknown, at = ''): PostureResponse {
  const body = checkRecord(at === '' ? 'body' : at.slice(0, -1), value ?? null);
  const path = (field: string) => `${at}${field}`;
  const id = checkString(path('id'), body.id);
  const typeId = body.typeId;
  switch (typeId) {
    case 'OS':
      return {
        id,
        typeId,
        type: checkString(path('type'), body.type),
        version: checkString(path('version'), body.version),
        build: optionalString(path('build'), body.build),
      };
    case 'MAC':
      return { id, typeId, macAddresses: strings(path('macAddresses'), body.macAddresses, true) };
    case 'DOMAIN':
      return { id, typeId, domain: checkString(path('domain'), body.domain) };
    case 'PROCESS':
      return {
        id,
        typeId,
        path: optionalString(path('path'), body.path),
        isRunning: optionalBoolean(path('isRunning'), body.isRunning),
        hash: optionalString(path('hash'), body.hash),
        signerFingerprints: strings(path('signerFingerprints'), body.signerFingerprints, false),
      };
    case 'ENDPOINT_STATE':
      return { id, typeId, woken: optionalBoolean(path('woken'), body.woken), unlocked: optionalBoolean(path('unlocked'), body.unlocked) };
    default:
      throw fieldError(path('typeId'), typeId ?? null, `typeId must be one of ${POSTURE_RESPONSE_TYPES.join(', ')}`);
  }
}

/** A bulk body: a JSON array of responses. */
export function parsePostureResponses(value: unknown): PostureResponse[] {
  return checkArray('body', value).map((item, i) => parsePostureResponse(item, `[${i}].`));
}

function optionalString(path: string, value: unknown): string {
  return value === undefined || value === null ? '' : checkString(path, value);
}

function optionalBoolean(path: string, value: unknown): boolean {
  return value === undefined || value === null ? false : checkBoolean(path, value);
}

function strings(path: string, value: unknown, required: boolean): string[] {
  if ((value === undefined || value === null) && !required) return [];
  return checkArray(path, value ?? null).map((item, i) => checkString(`${path}[${i}]`, item));
}
