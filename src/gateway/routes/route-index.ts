// Faster route matching: @koa/router tests every route's regexp on every request (about 220 of
// them here). Routes are grouped by the first path segment after the router's prefix, so a
// request only tests the routes of its own segment plus those whose first segment is a parameter;
// within the group, a plain route whose number of segments differs from the path's is skipped
// without running its regexp.

import type Router from '@koa/router';

type Layer = Router['stack'][number];

/** Replaces `router.match` with an equivalent that tests only the routes that can match. Routes
 * added later are picked up (the grouping is rebuilt when the stack grows). */
export function indexRoutes(router: Router, prefix: string): void {
  // Matching ignores case unless the router says otherwise; so does the grouping.
  const fold = router.opts.sensitive ? (text: string) => text : (text: string) => text.toLowerCase();
  const foldedPrefix = fold(prefix);
  let built = -1;
  let bySegment = new Map<string, Layer[]>();
  let anySegment: Layer[] = [];
  /** Segments a route's path always has, for plain routes (no optional or wildcard part). */
  let segments = new Map<Layer, number>();

  const rebuild = (): void => {
    const groups = new Map<string, Layer[]>();
    const open: Layer[] = [];
    router.stack.forEach((layer) => {
      const segment = literalSegment(layer, prefix, fold);
      if (segment === undefined) open.push(layer);
      else groups.set(segment, [...(groups.get(segment) ?? []), layer]);
    });
    // Each group keeps the stack order, with the open routes merged in where they stood.
    const order = new Map(router.stack.map((layer, i) => [layer, i]));
    const merged = (layers: Layer[]) => [...layers, ...open].sort((x, y) => order.get(x)! - order.get(y)!);
    bySegment = new Map([...groups].map(([segment, layers]) => [segment, merged(layers)]));
    anySegment = open;
    segments = new Map();
    for (const layer of router.stack) {
      const count = fixedSegments(layer);
      if (count !== undefined) segments.set(layer, count);
    }
    built = router.stack.length;
  };

  router.match = (path, method) => {
    if (built !== router.stack.length) rebuild();
    const layers = bySegment.get(firstSegment(fold(path), foldedPrefix)) ?? anySegment;
    const result: ReturnType<Router['match']> = { path: [], pathAndMethod: [], route: false };
    const wanted = method.toUpperCase();
    const count = segmentCount(path);
    for (const layer of layers) {
      const fixed = segments.get(layer);
      if ((fixed !== undefined && fixed !== count) || !layer.match(path)) continue;
      result.path.push(layer);
      if (layer.methods.length === 0 || layer.methods.includes(wanted)) {
        result.pathAndMethod.push(layer);
        if (layer.methods.length > 0) result.route = true;
      }
    }
    return result;
  };
}

/** The first segment after the prefix of a route's path, or undefined when it is not a plain
 * literal (a parameter, a pattern, a regexp route or router middleware). */
function literalSegment(layer: Layer, prefix: string, fold: (text: string) => string): string | undefined {
  if (typeof layer.path !== 'string' || layer.methods.length === 0 || !fold(layer.path).startsWith(fold(prefix))) return undefined;
  const segment = firstSegment(fold(layer.path), fold(prefix));
  return /^[A-Za-z0-9_.-]*$/.test(segment) ? segment : undefined;
}

function firstSegment(path: string, prefix: string): string {
  if (!path.startsWith(prefix)) return '\u0000';
  const rest = path.slice(prefix.length + 1);
  const slash = rest.indexOf('/');
  return slash < 0 ? rest : rest.slice(0, slash);
}

/** The number of segments of a route's path when every one is a literal or a plain `:param`
 * (which matches one non-empty segment); undefined for anything else, which is always tested. */
function fixedSegments(layer: Layer): number | undefined {
  if (typeof layer.path !== 'string' || layer.methods.length === 0) return undefined;
  if (!/^(?:\/(?:[A-Za-z0-9_.~-]+|:[A-Za-z0-9_]+))+$/.test(layer.path)) return undefined;
  return segmentCount(layer.path);
}

/** Segments of a path, not counting one trailing slash (routes match with or without it). */
function segmentCount(path: string): number {
  let count = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47 && i < path.length - 1) count++;
  return count;
}
