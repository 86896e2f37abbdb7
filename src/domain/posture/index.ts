// Public API of the posture check domain: types, typed-field validation and normalisation,
// and the fixed check-type catalogue. Evaluation comes with the posture-response feature.

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
