// Pure rules about an identity's state: whether it is disabled now, and the disable window.

import type { Entity } from './commands.js';

/** Disabled = disabledAt set and disabledUntil absent or in the future (expiry needs no job). */
export function isDisabled(identity: Entity, now: number = Date.now()): boolean {
  if (!identity.disabledAt) return false;
  const until = identity.disabledUntil as string | null | undefined;
  return !until || Date.parse(until) > now;
}

/** The fields a disable sets: durationMinutes <= 0 means until enabled again. */
export function disableFields(durationMinutes: number, at: string): { disabledAt: string; disabledUntil: string | null } {
  const minutes = Math.max(0, Math.floor(durationMinutes));
  return {
    disabledAt: at,
    disabledUntil: minutes === 0 ? null : new Date(Date.parse(at) + minutes * 60_000).toISOString(),
  };
}
