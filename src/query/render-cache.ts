// Presented entities kept as JSON text, so that reading the same entity again costs no reads,
// presentation or serialisation. Kept per entity, one rendering per viewer. An entity's
// renderings live until a commit changes what they may show (the query handler clears the cache
// on every apply, except session bookkeeping: a login forgets only its identity, an activity
// flush only its sessions), a change of router presence, or a time the entity's own fields name
// (an identity disabled until then). A rendering that began before a clear or a forget is never
// kept.

import type { Entity } from '../domain/commands.js';
import type { Kind } from '../domain/registry.js';

/** Most renderings kept; when full, the entity kept longest is dropped with all its renderings. */
const MAX_ENTRIES = 10_000;

interface Entry {
  json: string;
  presence: number;
  until: number;
}

export class RenderCache {
  /** `kind␀id` → viewer key → rendering. */
  private readonly entities = new Map<string, Map<string, Entry>>();
  private size = 0;
  /** Bumped by every clear and forget: a rendering that started under an older epoch is not kept. */
  private epoch = 0;

  constructor(private readonly presenceVersion: () => number) {}

  /** Drops everything (a command was applied). */
  clear(): void {
    this.epoch++;
    this.entities.clear();
    this.size = 0;
  }

  /** Drops the renderings of one entity, for every viewer (a command changed only what they show). */
  forget(kind: Kind, id: string): void {
    this.epoch++;
    this.drop(entityKey(kind, id));
  }

  /** The kept JSON of an entity as `viewer` sees it, if still valid (no waiting: the common case). */
  fresh(kind: string, id: string, viewer: string, now = Date.now()): string | undefined {
    const kept = this.entities.get(entityKey(kind, id))?.get(viewer);
    return kept && kept.presence === this.presenceVersion() && kept.until > now ? kept.json : undefined;
  }

  /** Changes with every clear and forget: a rendering of a record read at one version is kept
   * only while the version is the same (see render's `since`). */
  get version(): number {
    return this.epoch;
  }

  /** The JSON of an entity as `viewer` sees it, kept or rendered now (and kept if nothing changed
   * meanwhile). `since`: the version when the caller read the record it renders, if before. */
  async render(kind: string, id: string, viewer: string, render: () => Promise<{ json: string; record: Entity }>, now = Date.now(), since = this.epoch): Promise<string> {
    const kept = this.fresh(kind, id, viewer, now);
    if (kept !== undefined) return kept;
    const presence = this.presenceVersion();
    const { json, record } = await render();
    if (since === this.epoch && presence === this.presenceVersion()) this.keep(entityKey(kind, id), viewer, { json, presence, until: validUntil(record) });
    return json;
  }

  private keep(entity: string, viewer: string, entry: Entry): void {
    while (this.size >= MAX_ENTRIES) this.drop(this.entities.keys().next().value!);
    let renderings = this.entities.get(entity);
    if (!renderings) this.entities.set(entity, (renderings = new Map()));
    if (!renderings.has(viewer)) this.size++;
    renderings.set(viewer, entry);
  }

  private drop(entity: string): void {
    this.size -= this.entities.get(entity)?.size ?? 0;
    this.entities.delete(entity);
  }
}

function entityKey(kind: string, id: string): string {
  return `${kind}\u0000${id}`;
}

/** When a presentation that depends on the clock changes by itself: an identity disabled until
 * a time shows `disabled: false` from then on. */
function validUntil(record: Entity): number {
  if (record.disabledAt && typeof record.disabledUntil === 'string') return Date.parse(record.disabledUntil);
  return Number.POSITIVE_INFINITY;
}
