// Which authority vouches for a client certificate: the node CA, or a third-party CA from the
// replica. Chains are checked with node:crypto (checkIssued + verify); time is checked apart,
// so callers can tell an expired certificate from an untrusted one. No storage writes.

import { X509Certificate } from 'node:crypto';
import type { Entity } from '../domain/commands.js';
import { idFromRecordKey, recordRange } from '../store/keys.js';
import type { Replica } from '../store/replica.js';
import { certFingerprint, parseCertificates } from './ca-certificates.js';

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EXTENDED_KEY_USAGE = '2.5.29.37.0';
const MAX_CHAIN = 8;

/** The client's certificates as the TLS handshake gave them: leaf first, then intermediates. */
export interface PeerChain {
  leaf: X509Certificate;
  intermediates: X509Certificate[];
  fingerprint: string;
}

/** Parses the PEM list the gateway forwards; undefined when there is no usable leaf. */
export function peerChainOf(pems: unknown): PeerChain | undefined {
  if (!Array.isArray(pems) || pems.length === 0) return undefined;
  try {
    const [leaf, ...intermediates] = pems.map((pem) => new X509Certificate(String(pem)));
    return { leaf: leaf!, intermediates, fingerprint: certFingerprint(leaf!) };
  } catch {
    return undefined;
  }
}

function signedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
}

/** True when `leaf` chains to `anchor`, directly or through the client's intermediates. */
export function chainsTo(leaf: X509Certificate, intermediates: X509Certificate[], anchor: X509Certificate): boolean {
  let current = leaf;
  for (let depth = 0; depth < MAX_CHAIN; depth++) {
    if (signedBy(current, anchor)) return true;
    const next = intermediates.find((c) => c.ca && c !== current && signedBy(current, c));
    if (!next) return false;
    current = next;
  }
  return false;
}

/** A leaf without extended key usages, or with clientAuth (or any), may authenticate a client. */
export function allowsClientAuth(leaf: X509Certificate): boolean {
  const usages = leaf.keyUsage;
  return !usages || usages.includes(CLIENT_AUTH) || usages.includes(ANY_EXTENDED_KEY_USAGE);
}

/** 'valid', or which side of its validity window the certificate is on at `now`. */
export function validityAt(cert: X509Certificate, now: number = Date.now()): 'valid' | 'expired' | 'notYetValid' {
  if (now < Date.parse(cert.validFrom)) return 'notYetValid';
  if (now > Date.parse(cert.validTo)) return 'expired';
  return 'valid';
}

const parsed = new Map<string, X509Certificate>();

/** A trusted PEM certificate (the node CA), parsed once. */
export function certificateOf(pem: string): X509Certificate {
  let cert = parsed.get(pem);
  if (!cert) {
    cert = new X509Certificate(pem);
    if (parsed.size >= 8) parsed.clear();
    parsed.set(pem, cert);
  }
  return cert;
}

/** The first certificate of a CA record's PEM (the CA itself). */
export function caCertificateOf(ca: Entity): X509Certificate | undefined {
  try {
    return parseCertificates(String(ca.certPem ?? ''))[0];
  } catch {
    return undefined;
  }
}

/** Every third-party CA, in id order (CAs are few: a scan is fine). */
export async function allCas(replica: Replica): Promise<Entity[]> {
  const out: Entity[] = [];
  for await (const [key, value] of replica.kv.entries(recordRange('cas'))) {
    if (idFromRecordKey(key)) out.push(JSON.parse(value) as Entity);
  }
  return out;
}

/** The first CA accepted by `eligible` to which the chain leads, if any. */
export async function findIssuingCa(
  replica: Replica,
  chain: Pick<PeerChain, 'leaf' | 'intermediates'>,
  eligible: (ca: Entity) => boolean,
): Promise<Entity | undefined> {
  for (const ca of await allCas(replica)) {
    if (!eligible(ca)) continue;
    const anchor = caCertificateOf(ca);
    if (anchor && chainsTo(chain.leaf, chain.intermediates, anchor)) return ca;
  }
  return undefined;
}
