// The stored entity shape, shared by the declarations' hooks and the commands. Types only.

/** A stored entity: base fields plus the declared ones. */
export interface Entity {
  id: string;
  createdAt: string;
  updatedAt: string;
  tags: Record<string, unknown> | null;
  [field: string]: unknown;
}
