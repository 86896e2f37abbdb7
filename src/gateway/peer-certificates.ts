// The client certificate chain of a request, read from the TLS socket (the HTTPS server asks for
// client certificates but lets the controller decide whom to trust). Leaf first, as PEM.

import { createHash, X509Certificate } from 'node:crypto';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { Context } from 'koa';

/** The presented chain (leaf first) and the leaf's fingerprint (lowercase hex SHA-1 of the DER). */
export interface PeerCertificates {
  pems: string[];
  fingerprint: string;
}

/** What the client presented in the handshake; none when it sent no certificate. */
export function peerCertificates(ctx: Context): PeerCertificates | undefined {
  const socket = ctx.req.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  const leaf = socket.getPeerCertificate(true) as DetailedPeerCertificate | undefined;
  if (!leaf?.raw || leaf.raw.length === 0) return undefined;
  const pems: string[] = [];
  const seen = new Set<string>();
  for (let cert: DetailedPeerCertificate | undefined = leaf; cert?.raw && !seen.has(cert.fingerprint256); cert = cert.issuerCertificate) {
    seen.add(cert.fingerprint256);
    pems.push(new X509Certificate(cert.raw).toString());
  }
  return { pems, fingerprint: createHash('sha1').update(leaf.raw).digest('hex') };
}
