// Worker task: bulk posture re-evaluation of service sessions (plain data in and out), so a
// policy or posture-check change affecting many identities never blocks the main thread.
import { evaluatePostureBulk as evaluate, type PostureBulkInput, type PostureBulkResult } from '../domain/posture/evaluate-bulk.js';

export function evaluatePostureBulk(input: PostureBulkInput): PostureBulkResult[] {
  return evaluate(input);
}
