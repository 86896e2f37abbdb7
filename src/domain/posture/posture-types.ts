// The vocabulary of posture checks (BEHAVIOR.md §3): check types, OS types, PROCESS_MULTI
// semantics and the type-specific fields each check type stores. Pure data.

/** Posture check type ids, as `typeId` on the wire. */
export const POSTURE_CHECK_TYPES = ['OS', 'MAC', 'DOMAIN', 'PROCESS', 'PROCESS_MULTI', 'MFA'] as const;
export type PostureCheckType = (typeof POSTURE_CHECK_TYPES)[number];

/** Operating system types clients report (upstream `osType`); matched exactly on write. */
export const OS_TYPES = ['Windows', 'WindowsServer', 'Android', 'iOS', 'Linux', 'macOS'] as const;
export type OsType = (typeof OS_TYPES)[number];

/**
 * PROCESS_MULTI semantics. Upstream accepts AllOf / AnyOf; Weft also accepts `OneOf` as a
 * synonym of AnyOf (BEHAVIOR.md, "Where Weft deliberately differs"): stored as given,
 * evaluated as AnyOf (see `evaluationSemantic`).
 */
export const PROCESS_SEMANTICS = ['AllOf', 'AnyOf', 'OneOf'] as const;
export type ProcessSemantic = (typeof PROCESS_SEMANTICS)[number];

/** How a stored PROCESS_MULTI semantic is evaluated: `OneOf` means AnyOf. */
export function evaluationSemantic(semantic: string): 'AllOf' | 'AnyOf' {
  return semantic === 'AllOf' ? 'AllOf' : 'AnyOf';
}

/** One entry of an OS check: an OS type and the semver ranges it may be in (empty = any). */
export interface OperatingSystem {
  type: OsType;
  versions: string[];
}

/** The legacy single-process check's `process`. */
export interface ProcessSpec {
  osType: OsType;
  path: string;
  hashes: string[];
  signerFingerprint?: string;
}

/** One process of a PROCESS_MULTI check. */
export interface ProcessMultiSpec {
  osType: OsType;
  path: string;
  hashes: string[];
  signerFingerprints: string[];
}

/** The type-specific fields of each check type, in wire order. */
export const TYPED_FIELDS: Record<PostureCheckType, readonly string[]> = {
  OS: ['operatingSystems'],
  MAC: ['macAddresses'],
  DOMAIN: ['domains'],
  PROCESS: ['process'],
  PROCESS_MULTI: ['semantic', 'processes'],
  MFA: ['timeoutSeconds', 'promptOnWake', 'promptOnUnlock', 'ignoreLegacyEndpoints'],
};

/** MFA timeout meaning "no timeout"; every timeout <= 0 is stored as this. */
export const MFA_NO_TIMEOUT = -1;

/** Values stored when a create / replace body omits an optional typed field (MFA only). */
export const MFA_DEFAULTS = {
  timeoutSeconds: MFA_NO_TIMEOUT,
  promptOnWake: false,
  promptOnUnlock: false,
  ignoreLegacyEndpoints: false,
} as const;

export function isPostureCheckType(value: unknown): value is PostureCheckType {
  return typeof value === 'string' && (POSTURE_CHECK_TYPES as readonly string[]).includes(value);
}
