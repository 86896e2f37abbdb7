// The baseline server: a bare Koa JSON hello-world over HTTPS with the same kind of
// certificate, in its own process. Prints `listening <port>` when ready.
// Optional third and fourth arguments (the cost-curve scenario): microseconds of synchronous
// work per request, and the size in bytes of the JSON answer (default: the tiny hello-world).

import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import Koa from 'koa';

const [certFile, keyFile, spinArg, sizeArg] = process.argv.slice(2);
const spinMs = Number(spinArg ?? 0) / 1000;
const sized = sizeArg === undefined ? undefined : JSON.stringify({ data: { text: 'x'.repeat(Math.max(0, Number(sizeArg) - 32)) }, meta: {} });
const app = new Koa();
app.use((ctx) => {
  if (spinMs > 0) {
    const until = performance.now() + spinMs;
    while (performance.now() < until);
  }
  if (sized === undefined) ctx.body = { data: { hello: 'world' }, meta: {} };
  else {
    ctx.type = 'application/json';
    ctx.body = sized;
  }
});
const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, app.callback());
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
