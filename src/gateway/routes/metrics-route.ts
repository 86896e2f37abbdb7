// GET /metrics at the root of the HTTPS listener: the node's Prometheus text exposition.
// Deliberately unauthenticated (scrapers); what it renders holds no identifiers or secrets.

import type Router from '@koa/router';

export function addMetricsRoute(router: Router, render: () => Promise<string>): void {
  router.get('/metrics', async (ctx) => {
    const text = await render();
    ctx.status = 200;
    ctx.type = 'text/plain; version=0.0.4; charset=utf-8';
    ctx.body = text;
  });
}
