// Path cleaning before routing, as upstream's router does (Go's path.Clean on the request path):
// doubled slashes collapse, a trailing slash goes, `.` and `..` segments resolve. The query
// string is kept. ZAC asks for `/identities/<id>//` and upstream answers it as `/identities/<id>`.

import type { Middleware } from 'koa';

/** The cleaned form of an absolute URL path ('/' stays '/'). */
export function cleanPath(path: string): string {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  return `/${out.join('/')}`;
}

export const cleanPathMiddleware: Middleware = (ctx, next) => {
  const path = ctx.path;
  // The common case (already clean) costs one scan and no allocation.
  if (!/\/\/|\/$|\/\.\.?(?:\/|$)/.test(path) || path === '/') return next();
  ctx.path = cleanPath(path);
  return next();
};
