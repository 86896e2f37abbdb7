// Presented entities kept as JSON text, so that reading the same entity again costs no reads,
// presentation or serialisation. An entry lives until the next commit of any command (the
// query handler clears the cache on every apply), a change of router presence, or a time the
// entity's own fields name (an identity disabled until then). A rendering that began before a
// commit is never kept.

import type { Entity } from '../../domain/commands.js';

/** Most entities kept; the oldest kept is dropped first. */
const MAX_ENTRIES = 10_000;

interface Entry {
  json: string;
  presence: number;
  until: number;
}

export class RenderCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every clear: a rendering that started under an older epoch is not kept. */
  private epoch = 0;

  constructor(private readonly presenceVersion: () => number) {}

  /** Drops everything (a command was applied). */
  clear(): void {
    this.epoch++;
    this.entries.clear();
  }

  /** Drops the renderings of one entity (every viewer): a command changed only what they show.
   * Renderings under way are not kept either, as after clear(). */
  forget(kind: string, id: string): void {
    this.epoch++;
    const prefix = `${kind}\u0000${id}\u0000`;
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  /** The kept JSON of `key` if it is still valid (no waiting: the common case of a read). */
  fresh(key: string, now = Date.now()): string | undefined {
    const kept = this.entries.get(key);
    return kept && kept.presence === this.presenceVersion() && kept.until > now ? kept.json : undefined;
  }

  /** The JSON of `key`, from the cache or rendered now (and kept if nothing changed meanwhile). */
  async render(key: string, render: () => Promise<{ json: string; record: Entity }>, now = Date.now()): Promise<string> {
    const kept = this.fresh(key, now);
    if (kept !== undefined) return kept;
    const presence = this.presenceVersion();
    const epoch = this.epoch;
    const { json, record } = await render();
    if (epoch === this.epoch && presence === this.presenceVersion()) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { json, presence, until: validUntil(record) });
    }
    return json;
  }
}

/** When a presentation that depends on the clock changes by itself: an identity disabled until
 * a time shows `disabled: false` from then on. */
function validUntil(record: Entity): number {
  if (record.disabledAt && typeof record.disabledUntil === 'string') return Date.parse(record.disabledUntil);
  return Number.POSITIVE_INFINITY;
}
