// The admin CLI's HTTPS client for the management API: node's https module with the CA the
// operator gave (no extra dependencies), JSON in and out, errors as CliError with the API code.

import { request } from 'node:https';

/** The management API path every Weft (and OpenZiti) controller serves. */
export const MANAGEMENT_PATH = '/edge/management/v1';

/** A failure to report to the operator; `exitCode` 1 = the call failed, 2 = bad usage. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export interface AdminResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body (undefined when empty or not JSON). */
  body: any;
  text: string;
}

/** `https://host:1280` (or a URL already ending in the management path) → the API base. */
export function managementBase(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`--url must be an https URL such as https://host:1280, got ${JSON.stringify(url)}`, 2);
  }
  if (parsed.protocol !== 'https:') throw new CliError(`--url must use https, got ${JSON.stringify(url)}`, 2);
  const path = parsed.pathname.replace(/\/+$/, '');
  return `${parsed.origin}${path.endsWith(MANAGEMENT_PATH) ? path : `${path}${MANAGEMENT_PATH}`}`;
}

export class AdminClient {
  constructor(
    /** `https://host:port/edge/management/v1` */
    readonly base: string,
    /** PEM of the CA to trust (undefined = the system's CAs). */
    private readonly caPem: string | undefined,
    private readonly token?: string,
  ) {}

  /** One request; `path` is relative to the management API (e.g. `/identities?limit=5`). */
  send(method: string, path: string, body?: unknown, timeoutMs = 60_000): Promise<AdminResponse> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    if (this.token) headers['zt-session'] = this.token;
    return new Promise((resolve, reject) => {
      const req = request(`${this.base}${path}`, { method, headers, ca: this.caPem, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, text });
        });
      });
      req.on('timeout', () => req.destroy(new Error(`no answer from ${this.base} within ${timeoutMs} ms`)));
      req.on('error', (err) => reject(new CliError(`cannot reach ${this.base}: ${err.message}${untrustedHint(err)}`)));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /** The `data` of a successful answer; anything else becomes a CliError with the API's code. */
  async call<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.send(method, path, body);
    if (res.status >= 200 && res.status < 300) return (res.body?.data ?? {}) as T;
    throw new CliError(describeFailure(res));
  }
}

/** TLS errors of a server certificate no trusted CA signed. */
const UNTRUSTED_CERT = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY']);

/** What to do when the node's certificate is not trusted: name its CA (a node generates its own). */
function untrustedHint(err: NodeJS.ErrnoException): string {
  return UNTRUSTED_CERT.has(err.code ?? '') ? " (pass the node's CA with --ca; a node keeps it in <data-dir>/pki/ca.pem)" : '';
}

/** `HTTP 404 NOT_FOUND: The resource requested was not found... (cause: ...)`. */
export function describeFailure(res: AdminResponse): string {
  const error = res.body?.error as { code?: string; message?: string; cause?: unknown } | undefined;
  if (!error) return `HTTP ${res.status}: ${res.text.slice(0, 200)}`;
  const cause = error.cause === undefined || error.cause === '' ? '' : ` (cause: ${JSON.stringify(error.cause)})`;
  const hint = res.status === 401 ? ' — run `weft login` again' : '';
  return `HTTP ${res.status} ${error.code}: ${error.message}${cause}${hint}`;
}
