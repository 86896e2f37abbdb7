// The regular-expression engine for config-type schema patterns: V8's linear-time engine (the
// `l` flag), so no pattern and no value can make matching backtrack. A pattern that engine
// cannot run is refused when the schema is compiled; nothing falls back to backtracking.

import { setFlagsFromString } from 'node:v8';

/** Why a pattern is refused; the schema error names the pattern before it. */
export const NOT_LINEAR =
  'cannot run on the linear-time regexp engine (backreferences, lookaround, unicode property escapes and counted repetitions over 16 are refused)';

/** Unicode-only escapes: without the `u` flag (which the linear engine does not take) they would
 * silently mean something else, so they are refused instead. */
const UNICODE_ONLY = /\\[pP]|\\u\{/;

let enabled = false;

/** An ajv `code.regExp` engine: compiles `source` on the linear engine or throws. */
export const linearRegExp = Object.assign(
  (source: string): RegExp => {
    if (!enabled) {
      // Only lets the RegExp constructor accept the `l` flag; nothing else changes behaviour.
      setFlagsFromString('--enable-experimental-regexp-engine');
      enabled = true;
    }
    if (UNICODE_ONLY.test(source)) throw new Error(`pattern ${JSON.stringify(source)} ${NOT_LINEAR}`);
    try {
      return new RegExp(source, 'l');
    } catch {
      throw new Error(`pattern ${JSON.stringify(source)} ${NOT_LINEAR}`);
    }
  },
  { code: 'linearRegExp' },
);
