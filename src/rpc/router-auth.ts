// Authenticates routers on the gRPC posture stream by their TLS client certificate: it must be
// issued by the node CA, be within its validity, and its SHA-1 fingerprint must equal the edge
// router record's `fingerprint` (cleared by re-enroll, so a re-enrolled router is refused).

import { createHash, X509Certificate } from 'node:crypto';

/** The edge router fields authentication reads. */
export interface RouterRecord {
  id: string;
  fingerprint?: unknown;
  disabled?: unknown;
}

export interface RouterAuthOptions {
  caPem: string;
  /** The edge router record with this id. */
  router(id: string): Promise<RouterRecord | undefined>;
  /** The edge router whose fingerprint this is (when the certificate's CN is not the router id). */
  routerByFingerprint?(fingerprint: string): Promise<RouterRecord | undefined>;
  now?: () => number;
}

/** An authenticated router stream: which router, by which certificate. */
export interface RouterPeer {
  routerId: string;
  fingerprint: string;
}

export class RouterAuthError extends Error {}

/** Fingerprints compare as lowercase hex without separators. */
export function normaliseFingerprint(value: unknown): string {
  return typeof value === 'string' ? value.toLowerCase().replace(/[^0-9a-f]/g, '') : '';
}

export class RouterAuthenticator {
  private readonly ca: X509Certificate;

  constructor(private readonly opts: RouterAuthOptions) {
    this.ca = new X509Certificate(opts.caPem);
  }

  /** The router behind a peer certificate (DER); throws RouterAuthError when it is not one. */
  async authenticate(der: Buffer | undefined): Promise<RouterPeer> {
    if (!der || der.length === 0) throw new RouterAuthError('a client certificate is required');
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(der);
    } catch {
      throw new RouterAuthError('the client certificate cannot be parsed');
    }
    if (!cert.checkIssued(this.ca) || !cert.verify(this.ca.publicKey)) throw new RouterAuthError('the client certificate is not issued by this controller');
    const now = this.opts.now?.() ?? Date.now();
    if (Date.parse(cert.validFrom) > now || Date.parse(cert.validTo) < now) throw new RouterAuthError('the client certificate is not valid now');
    const fingerprint = createHash('sha1').update(cert.raw).digest('hex');
    const router = await this.findRouter(commonName(cert.subject), fingerprint);
    if (!router) throw new RouterAuthError('no edge router is enrolled with this certificate');
    if (router.disabled === true) throw new RouterAuthError('the edge router is disabled');
    return { routerId: router.id, fingerprint };
  }

  /** True while the router record still carries the stream's certificate fingerprint. */
  async stillValid(peer: RouterPeer): Promise<boolean> {
    const router = await this.opts.router(peer.routerId);
    return router !== undefined && router.disabled !== true && normaliseFingerprint(router.fingerprint) === peer.fingerprint;
  }

  private async findRouter(cn: string | undefined, fingerprint: string): Promise<RouterRecord | undefined> {
    if (cn) {
      const router = await this.opts.router(cn);
      if (router && normaliseFingerprint(router.fingerprint) === fingerprint) return router;
    }
    const other = await this.opts.routerByFingerprint?.(fingerprint);
    return other && normaliseFingerprint(other.fingerprint) === fingerprint ? other : undefined;
  }
}

function commonName(subject: string): string | undefined {
  for (const line of subject.split('\n')) if (line.startsWith('CN=')) return line.slice(3);
  return undefined;
}
