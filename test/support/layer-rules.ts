// The layering rules of src/ as pure functions: parse relative import specifiers from source
// text, resolve them to repo paths, and list the edges the rules forbid. No file I/O here.

import { posix } from 'node:path';

/** One import edge between two repo-relative paths, e.g. `src/gateway/app.ts` → `src/bus/bus.ts`. */
export interface ImportEdge {
  from: string;
  to: string;
}

/** The top-level area of a repo path: a folder under src/, a root file of src/, or `outside`. */
export function areaOf(path: string): string {
  const parts = path.split('/');
  if (parts[0] !== 'src' || parts.length < 2) return 'outside';
  return parts.length === 2 ? parts[1]! : `${parts[1]}/`;
}

/** Allow-lists: an area listed here may import only these areas (plus itself). */
const ONLY: Record<string, readonly string[]> = {
  'domain/': ['domain/', 'errors.ts'],
  'workers/': ['workers/', 'domain/', 'errors.ts'],
  'bus/': ['bus/', 'errors.ts'],
  // The bus protocol: message types and their readers, shared by both sides of the bus.
  'protocol/': ['protocol/', 'errors.ts'],
  // The read side: answers from the replica, never reaches the write side (actors, log, workers).
  'query/': ['query/', 'protocol/', 'domain/', 'store/', 'bus/', 'pki/', 'errors.ts'],
  // The gateway talks to the bus only: never the store, log, actors or workers.
  'gateway/': ['gateway/', 'bus/', 'protocol/', 'domain/', 'errors.ts', 'config.ts'],
  // gRPC services: router posture streams (handing events to a callback) and store snapshots,
  // served with the node's TLS policy (pki/).
  'rpc/': ['rpc/', 'protocol/', 'domain/', 'store/', 'pki/', 'errors.ts', 'logger.ts'],
  // Node operations read the store and observe gateway requests; they never reach the actors.
  'ops/': ['ops/', 'store/', 'protocol/', 'domain/', 'gateway/', 'errors.ts', 'logger.ts'],
};

/** Deny-lists: an area listed here must not import these areas. */
const NEVER: Record<string, readonly string[]> = {
  'store/': ['gateway/', 'actors/', 'bus/', 'rpc/'],
  'log/': ['gateway/', 'actors/', 'bus/', 'rpc/'],
  // The write side: served over the bus, never knowing who sends (gateway, rpc) or the cluster.
  'actors/': ['gateway/', 'rpc/', 'cluster/', 'cli/'],
};

function isForbidden(edge: ImportEdge): boolean {
  if (edge.to === 'src/main.ts' && edge.from !== 'src/main.ts') return true;
  const from = areaOf(edge.from);
  const to = areaOf(edge.to);
  const only = ONLY[from];
  if (only && !only.includes(to)) return true;
  return NEVER[from]?.includes(to) ?? false;
}

/** The forbidden edges, each as `src/a/x.ts -> src/b/y.ts`, in input order without duplicates. */
export function forbiddenEdges(edges: { from: string; to: string }[]): string[] {
  const out = new Set<string>();
  for (const edge of edges) if (isForbidden(edge)) out.add(`${edge.from} -> ${edge.to}`);
  return [...out];
}

/** The import cycles among nodes (strongly connected sets of two or more, or a node importing
 * itself), each as its sorted members joined by ` <-> `, sorted. Tarjan's algorithm. */
export function cycles(edges: { from: string; to: string }[]): string[] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, new Set());
    if (!next.has(to)) next.set(to, new Set());
    next.get(from)!.add(to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node)!) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.push(member);
    } while (member !== node);
    if (members.length > 1 || next.get(node)!.has(node)) found.push(members.sort().join(' <-> '));
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) visit(node);
  return found.sort();
}

/** The edges between areas (see areaOf), one per pair, without an area's edges to itself. */
export function areaEdges(edges: ImportEdge[]): ImportEdge[] {
  const seen = new Map<string, ImportEdge>();
  for (const edge of edges) {
    const from = areaOf(edge.from);
    const to = areaOf(edge.to);
    if (from !== to) seen.set(`${from} ${to}`, { from, to });
  }
  return [...seen.values()];
}

/** Removes `//` and `/* *\/` comments, keeping string and template literals intact. */
export function stripComments(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    const next = source[i + 1];
    if (ch === '/' && next === '/') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (ch === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 2;
      out += ' ';
    } else if (ch === '"' || ch === "'" || ch === '`') {
      const start = i++;
      // A quote inside a regex literal may open a bogus string: ' and " strings end at a newline.
      while (i < source.length && source[i] !== ch && (ch === '`' || source[i] !== '\n')) i += source[i] === '\\' ? 2 : 1;
      out += source.slice(start, ++i);
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

const IMPORT_PATTERNS = [
  /\bimport\s+(?:type\s+)?[\w*{}\s,$]*?\bfrom\s*['"]([^'"]+)['"]/g, // import x / {a} / * as n from '...'
  /\bimport\s*['"]([^'"]+)['"]/g, // import '...' (side effects)
  /\bexport\s+(?:type\s+)?(?:\*(?:\s+as\s+[\w$]+)?|\{[^}]*\})\s*from\s*['"]([^'"]+)['"]/g, // re-exports
  /\bimport\s*\(\s*['"`]([^'"`]+)['"`]\s*[,)]/g, // dynamic import('...')
];

/** The relative module specifiers (starting with `.`) a source text imports or re-exports. */
export function importSpecifiers(source: string): string[] {
  const text = stripComments(source);
  const found: string[] = [];
  for (const pattern of IMPORT_PATTERNS) {
    for (const match of text.matchAll(pattern)) if (match[1]!.startsWith('.')) found.push(match[1]!);
  }
  return [...new Set(found)];
}

/** Resolves a relative specifier of `from` (repo path) to a repo path; `.js` maps to `.ts`. */
export function resolveSpecifier(from: string, specifier: string): string {
  const target = posix.normalize(posix.join(posix.dirname(from), specifier));
  return target.endsWith('.js') ? `${target.slice(0, -3)}.ts` : target;
}

/** True when code (comments ignored) touches `process.env` or `process.argv`. */
export function readsProcessGlobals(source: string): boolean {
  const text = stripComments(source);
  return (
    /\bprocess\s*(?:\?\.|\.)\s*(?:env|argv)\b/.test(text) ||
    /\bprocess\s*\[\s*['"`](?:env|argv)['"`]\s*\]/.test(text) ||
    /\{[^}]*\b(?:env|argv)\b[^}]*\}\s*=\s*(?:globalThis\.)?process\b/.test(text)
  );
}
