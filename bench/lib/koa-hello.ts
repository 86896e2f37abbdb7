// The baseline server: a bare Koa JSON hello-world over HTTPS with the same kind of
// certificate, in its own process. Prints `listening <port>` when ready.

import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import Koa from 'koa';

const [certFile, keyFile] = process.argv.slice(2);
const app = new Koa();
app.use((ctx) => {
  ctx.body = { data: { hello: 'world' }, meta: {} };
});
const server = createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile) }, app.callback());
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
