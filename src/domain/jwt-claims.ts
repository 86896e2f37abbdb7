// Reading a JWT claim by an external JWT signer's selector: a JSON pointer, or a root property
// name to which a leading `/` is added (upstream). Pure.

/** The selector as a JSON pointer. */
export function pointerOf(selector: string): string {
  return selector.startsWith('/') ? selector : `/${selector}`;
}

/** The value at the selector, or undefined when a step is missing. */
export function claimAt(claims: unknown, selector: string): unknown {
  let node: unknown = claims;
  for (const raw of pointerOf(selector).slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** A non-empty string at the selector, or undefined. */
export function stringClaimAt(claims: unknown, selector: string): string | undefined {
  const value = claimAt(claims, selector);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A string or the strings of an array at the selector (other values ignored); [] when absent. */
export function stringListClaimAt(claims: unknown, selector: string): string[] {
  const value = claimAt(claims, selector);
  if (typeof value === 'string') return value === '' ? [] : [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v !== '') : [];
}
