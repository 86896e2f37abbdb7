// Public API of the posture check domain: types, typed-field validation and normalisation,
// the fixed check-type catalogue, posture data and responses, and evaluation (pure).

export { POSTURE_CHECK_TYPE_CATALOGUE, type PostureCheckTypeInfo } from './check-type-catalogue.js';
export { isValidVersionRange } from './os-check.js';
export { checkTypeIdUnchanged, normaliseMac, validatePostureFields } from './posture-fields.js';
export {
  MFA_DEFAULTS,
  MFA_NO_TIMEOUT,
  OS_TYPES,
  POSTURE_CHECK_TYPES,
  PROCESS_SEMANTICS,
  TYPED_FIELDS,
  evaluationSemantic,
  isPostureCheckType,
  type OperatingSystem,
  type OsType,
  type PostureCheckType,
  type ProcessMultiSpec,
  type ProcessSemantic,
  type ProcessSpec,
} from './posture-types.js';
export * from './posture-data.js';
export { parsePostureResponse, parsePostureResponses } from './posture-response-input.js';
export { evaluateCheck, type CheckFailure, type CheckRecord, type CheckResult } from './evaluate-check.js';
export { evaluateOs, isStrictSemver, versionSatisfies } from './evaluate-os.js';
export { evaluateMac } from './evaluate-mac.js';
export { evaluateDomain } from './evaluate-domain.js';
export { evaluateProcess, evaluateProcessMulti } from './evaluate-process.js';
export {
  MFA_GRACE_MS,
  MFA_GRACE_SECONDS,
  evaluateMfa,
  isLegacyClient,
  mfaNextChange,
  mfaSpecOf,
  mfaTimeoutRemaining,
  passedOnUnlock,
  passedOnWake,
  type MfaSpec,
} from './evaluate-mfa.js';
export * from './evaluate-policies.js';
export { postureQueries, postureQuery, type PostureQueryInput, type PostureQuerySet } from './posture-queries.js';
export * from './evaluate-bulk.js';
