// What a node sets up on disk and on the network before anything else: its TLS material (the
// node PKI, or operator-given files), its node id, and the listening HTTPS server.

import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import type { Server } from 'node:https';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { splitAddress, type Config } from './config.js';
import { ensureNodePki, loadTlsFiles, type TlsFiles } from './pki/node-pki.js';

export { TLS_POLICY } from './pki/tls-policy.js';

/** The node's TLS material: the served certificate and key, and the node CA (PEM); `ca` is the
 * cluster's CA in cluster mode (the node's server certificate is issued from it). */
export async function loadTls(config: Config, dataDir: string, host: string, ca?: TlsFiles) {
  const pkiDir = join(dataDir, 'pki');
  const hostnames = ['localhost'];
  const ips = ['127.0.0.1', '::1'];
  const advertisedHost = config.advertise ? splitAddress(config.advertise).host : host;
  for (const name of [host, advertisedHost]) {
    if (isIP(name)) {
      if (!ips.includes(name) && name !== '0.0.0.0' && name !== '::') ips.push(name);
    } else if (!hostnames.includes(name)) hostnames.push(name);
  }
  const pki = await ensureNodePki({ dir: pkiDir, hostnames, ips, ca });
  if (config.tlsCert && config.tlsKey) {
    const files = await loadTlsFiles(config.tlsCert, config.tlsKey);
    return { certPem: files.certPem, keyPem: files.keyPem, caPem: pki.caCertPem, caKeyPem: pki.caKeyPem };
  }
  return { certPem: pki.serverCertPem, keyPem: pki.serverKeyPem, caPem: pki.caCertPem, caKeyPem: pki.caKeyPem };
}

/** The node id kept in the data dir, created (random, owner-only file) at the first start. */
export async function readOrCreateNodeId(dataDir: string): Promise<string> {
  const file = join(dataDir, 'node-id');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const id = `node-${randomBytes(4).toString('hex')}`;
    await writeFile(file, `${id}\n`, { mode: 0o600 });
    return id;
  }
}

/** Listens and resolves once bound (rejects if the address cannot be bound). */
export function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      done();
    });
  });
}
