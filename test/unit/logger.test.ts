// The logger's safety net: fields named like secrets are redacted at any depth, private-key PEM
// blocks are cut from any text, and everything else is written as given.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../src/logger.js';

const KEY_PEM = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----';

describe('logger redaction', () => {
  it('redacts secret-named fields at any depth and keeps the rest', () => {
    const lines: string[] = [];
    const log = createLogger('debug', {}, (_level, line) => lines.push(line));
    log.info('login', {
      password: 'hunter2-pw',
      newPassword: 'n3w-pw',
      token: 'tok-123',
      nested: { authorization: 'Bearer abc.def', passwordHash: 'h4sh', salt: 's4lt', caKeyPem: KEY_PEM },
      identityId: 'id-1',
      tokenCount: 3,
      isPasswordSet: true,
      code: 'INVALID_AUTH',
    });
    const entry = JSON.parse(lines[0]!);
    assert.equal(entry.password, '[redacted]');
    assert.equal(entry.newPassword, '[redacted]');
    assert.equal(entry.token, '[redacted]');
    assert.deepEqual(entry.nested, { authorization: '[redacted]', passwordHash: '[redacted]', salt: '[redacted]', caKeyPem: '[redacted]' });
    assert.equal(entry.identityId, 'id-1');
    assert.equal(entry.tokenCount, 3);
    assert.equal(entry.isPasswordSet, true);
    assert.equal(entry.code, 'INVALID_AUTH');
    for (const secret of ['hunter2-pw', 'n3w-pw', 'tok-123', 'abc.def', 'h4sh', 's4lt', 'MIIEvQ']) assert.ok(!lines[0]!.includes(secret), secret);
  });

  it('redacts flat entries (numbers and strings under secret names, child fields) as nested ones', () => {
    const lines: string[] = [];
    const log = createLogger('debug', { sessionToken: 'base-tok' }, (_level, line) => lines.push(line)).child({ jwt: 'child-jwt' });
    log.info('flat', { otp: 123456, totp: '654321', zitiPassword: 'pw-flat', identityId: 'id-2', count: 7, ok: false, none: null });
    log.info(`msg with ${KEY_PEM}`, { status: 200 });
    const entry = JSON.parse(lines[0]!);
    assert.deepEqual(
      { otp: entry.otp, totp: entry.totp, zitiPassword: entry.zitiPassword, sessionToken: entry.sessionToken, jwt: entry.jwt },
      { otp: '[redacted]', totp: '[redacted]', zitiPassword: '[redacted]', sessionToken: '[redacted]', jwt: '[redacted]' },
    );
    assert.deepEqual([entry.identityId, entry.count, entry.ok, entry.none], ['id-2', 7, false, null]);
    for (const secret of ['123456', '654321', 'pw-flat', 'base-tok', 'child-jwt']) assert.ok(!lines[0]!.includes(secret), secret);
    assert.ok(!lines[1]!.includes('MIIEvQ'));
    assert.match(lines[1]!, /\[redacted private key\]/);
  });

  it('cuts private-key PEM blocks out of messages, fields and error stacks', () => {
    const lines: string[] = [];
    const log = createLogger('debug', {}, (_level, line) => lines.push(line));
    log.error('oops', { detail: `loaded ${KEY_PEM} from disk`, error: new Error(`bad key ${KEY_PEM}`) });
    assert.ok(!lines[0]!.includes('MIIEvQ'));
    assert.match(lines[0]!, /\[redacted private key\]/);
  });
});

describe('logger lines', () => {
  it('writes time, level, msg, the child fields and the entry fields, in that order, as one JSON object', () => {
    const lines: string[] = [];
    const log = createLogger('debug', { node: 'n1' }, (_level, line) => lines.push(line)).child({ part: 'gateway' });
    log.info('request', { requestId: 'r-1', status: 200, ms: 1.5, skipped: undefined, flag: true });
    log.info('bare');
    const entry = JSON.parse(lines[0]!);
    assert.deepEqual(Object.keys(entry), ['time', 'level', 'msg', 'node', 'part', 'requestId', 'status', 'ms', 'flag']);
    assert.deepEqual({ ...entry, time: undefined }, { time: undefined, level: 'info', msg: 'request', node: 'n1', part: 'gateway', requestId: 'r-1', status: 200, ms: 1.5, flag: true });
    assert.ok(!Number.isNaN(Date.parse(entry.time)));
    assert.deepEqual(Object.keys(JSON.parse(lines[1]!)), ['time', 'level', 'msg', 'node', 'part']);
  });

  it('lets an entry field override a child field or the message, with no key written twice', () => {
    const lines: string[] = [];
    const log = createLogger('debug', { node: 'n1' }, (_level, line) => lines.push(line));
    log.info('first', { node: 'n2', msg: 'second', level: 'x' });
    assert.equal(lines[0]!.match(/"node"/g)?.length, 1);
    assert.equal(lines[0]!.match(/"msg"/g)?.length, 1);
    const entry = JSON.parse(lines[0]!);
    assert.equal(entry.node, 'n2');
    assert.equal(entry.msg, 'second');
  });
});
