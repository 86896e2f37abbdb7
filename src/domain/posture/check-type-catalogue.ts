// The fixed posture check types served by /posture-check-types: upstream's seeded data
// (openziti/ziti controller/db addPostureCheckTypes, addProcessMultiPostureCheck). Pure data.

import type { OperatingSystem, PostureCheckType } from './posture-types.js';

/** One posture check type as upstream stores it; presentation adds base fields and links. */
export interface PostureCheckTypeInfo {
  id: PostureCheckType;
  name: string;
  operatingSystems: OperatingSystem[];
}

// Upstream's seeded version lists are labels, not ranges ("Vista", "2000"); kept verbatim.
const WINDOWS: OperatingSystem = { type: 'Windows', versions: ['Vista', '7', '8', '10', '2000'] };
const LINUX: OperatingSystem = { type: 'Linux', versions: ['4.14', '4.19', '5.4', '5.9'] };
const IOS: OperatingSystem = { type: 'iOS', versions: ['11', '12'] };
const MACOS: OperatingSystem = { type: 'macOS', versions: ['10.15', '11.0'] };
const ANDROID: OperatingSystem = { type: 'Android', versions: ['9', '10', '11'] };
const anyVersion = (os: OperatingSystem): OperatingSystem => ({ type: os.type, versions: [] });

/**
 * Every type, in id order (upstream lists them in key order). Upstream seeds no MFA type
 * although MFA checks exist; Weft lists it so every accepted `typeId` has a type entry.
 */
export const POSTURE_CHECK_TYPE_CATALOGUE: readonly PostureCheckTypeInfo[] = [
  { id: 'DOMAIN', name: 'Windows Domain Check', operatingSystems: [WINDOWS] },
  { id: 'MAC', name: 'MAC Address Check', operatingSystems: [WINDOWS, LINUX, MACOS, ANDROID] },
  { id: 'MFA', name: 'MFA Check', operatingSystems: [] },
  { id: 'OS', name: 'Operating System Check', operatingSystems: [WINDOWS, LINUX, ANDROID, MACOS, IOS] },
  { id: 'PROCESS', name: 'Process Check', operatingSystems: [WINDOWS, MACOS, LINUX] },
  { id: 'PROCESS_MULTI', name: 'Process Multi Check', operatingSystems: [WINDOWS, MACOS, LINUX].map(anyVersion) },
];
