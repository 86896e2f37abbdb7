// GET /healthz (liveness) and GET /readyz (readiness) at the root of the HTTPS listener, as
// Kubernetes probes ask. Unauthenticated and outside the read barrier; they only report.

import type Router from '@koa/router';

/** A node's health as the probes see it (ops/node-health.ts builds it; the body shows all of it). */
export interface HealthAnswer {
  live: boolean;
  ready: boolean;
  [detail: string]: unknown;
}

/** The paths answered without a session or a read barrier. */
export const HEALTH_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

export function addHealthRoutes(router: Router, health: () => HealthAnswer): void {
  // 200 while the process can serve once caught up (a node that is merely behind is alive).
  router.get('/healthz', (ctx) => answer(ctx, health(), 'live'));
  // 200 only when this node should take traffic.
  router.get('/readyz', (ctx) => answer(ctx, health(), 'ready'));
}

function answer(ctx: { status: number; body: unknown; set(name: string, value: string): void }, status: HealthAnswer, probe: 'live' | 'ready'): void {
  ctx.set('cache-control', 'no-store');
  ctx.status = status[probe] ? 200 : 503;
  ctx.body = { data: status, meta: {} };
}
