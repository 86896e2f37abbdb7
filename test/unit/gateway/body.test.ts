// Unit tests for the body parser's JSON depth cap: the linear depth scan and parseJsonText.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/errors.js';
import { jsonDepth, MAX_JSON_DEPTH, parseJsonText } from '../../../src/gateway/middleware/body.js';

const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('jsonDepth', () => {
  it('counts the deepest array/object nesting', () => {
    assert.equal(jsonDepth('1', 10), 0);
    assert.equal(jsonDepth('{"a":[1,{"b":2}],"c":{}}', 10), 3);
    assert.equal(jsonDepth(nested(7), 10), 7);
  });

  it('skips brackets inside strings, escaped quotes included', () => {
    assert.equal(jsonDepth('{"a":"[[[{{{\\"[[["}', 10), 1);
  });

  it('stops just past the cap', () => {
    assert.equal(jsonDepth(nested(100_000), 64), 65);
  });
});

describe('parseJsonText', () => {
  it(`parses JSON nested ${MAX_JSON_DEPTH} levels deep`, () => {
    assert.deepEqual(parseJsonText(nested(MAX_JSON_DEPTH)), JSON.parse(nested(MAX_JSON_DEPTH)));
  });

  it('refuses deeper JSON with 400 COULD_NOT_PARSE_BODY naming the cap, before parsing', () => {
    assert.throws(() => parseJsonText(nested(MAX_JSON_DEPTH + 1)), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, 400);
      assert.equal(err.code, 'COULD_NOT_PARSE_BODY');
      assert.match(String((err.apiCause as { message: string }).message), new RegExp(`cap is ${MAX_JSON_DEPTH}`));
      return true;
    });
  });

  it('refuses malformed JSON with 400 COULD_NOT_PARSE_BODY', () => {
    assert.throws(() => parseJsonText('{"a":'), (err: unknown) => err instanceof ApiError && err.code === 'COULD_NOT_PARSE_BODY');
  });
});
