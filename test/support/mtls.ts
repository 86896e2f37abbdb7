// API clients that present a client certificate (mutual TLS) to a test node, for certificate
// login, enrollment and extension tests.

import { Agent } from 'undici';
import { ApiClient, type TestNode } from './test-node.js';

/** Both APIs over one connection pool that presents `certPem` / `keyPem`. */
export interface MtlsClients {
  mgmt: ApiClient;
  client: ApiClient;
  close(): Promise<void>;
}

export function mtlsClients(node: TestNode, creds: { certPem: string; keyPem: string }): MtlsClients {
  const dispatcher = new Agent({ connect: { ca: node.handle.caPem, cert: creds.certPem, key: creds.keyPem } });
  return {
    mgmt: new ApiClient(`${node.handle.url}/edge/management/v1`, dispatcher),
    client: new ApiClient(`${node.handle.url}/edge/client/v1`, dispatcher),
    close: () => dispatcher.close(),
  };
}

/** Logs in with the certificate (`POST /authenticate?method=cert`) on the client API. */
export async function certLogin(node: TestNode, creds: { certPem: string; keyPem: string }): Promise<{ status: number; token?: string; body: any }> {
  const clients = mtlsClients(node, creds);
  try {
    const res = await clients.client.post('/authenticate?method=cert', {});
    return { status: res.status, token: res.headers.get('zt-session') ?? undefined, body: res.body };
  } finally {
    await clients.close();
  }
}
