// External ids read from client certificates (BEHAVIOR.md §4.8, §5.3): a third-party CA with an
// externalIdClaim names identities by `externalId` instead of certificate fingerprints, so a
// certificate can rotate as long as the claim still reads the same value. Reads only.

import type { X509Certificate } from 'node:crypto';
import type { ExternalIdClaim } from '../domain/ca-rules.js';
import type { Entity } from '../domain/commands.js';
import { extractExternalId } from '../domain/external-id-claim.js';
import type { Replica } from '../store/replica.js';
import { certificateNamesOf } from './ca-certificates.js';
import { allCas, caCertificateOf, chainsTo, peerChainOf, type PeerChain } from './trust.js';

/** The CA's claim, or undefined when it has none. */
export function claimOf(ca: Entity): ExternalIdClaim | undefined {
  const claim = ca.externalIdClaim;
  return claim && typeof claim === 'object' ? (claim as ExternalIdClaim) : undefined;
}

/** The external id the CA's claim reads from `leaf`; undefined without a claim or a value. */
export function externalIdOf(ca: Entity, leaf: X509Certificate): string | undefined {
  const claim = claimOf(ca);
  return claim ? extractExternalId(claim, certificateNamesOf(leaf)) : undefined;
}

/** A CA that may authenticate by external id: verified, isAuthEnabled, with a claim. */
export function authenticatesByExternalId(ca: Entity): boolean {
  return ca.isVerified === true && ca.isAuthEnabled === true && claimOf(ca) !== undefined;
}

/** True when `ca` authenticates by external id and the chain leads to it. */
export function vouchesByExternalId(ca: Entity, chain: Pick<PeerChain, 'leaf' | 'intermediates'>): boolean {
  if (!authenticatesByExternalId(ca)) return false;
  const anchor = caCertificateOf(ca);
  return anchor !== undefined && chainsTo(chain.leaf, chain.intermediates, anchor);
}

/** What a client certificate says through the first CA that authenticates it by external id:
 * undefined when no such CA vouches for it, or its claim reads no value (upstream then falls
 * back to the fingerprint). The chain is parsed only when such a CA exists. */
export async function externalIdOfPeer(replica: Replica, pems: unknown): Promise<{ ca: Entity; externalId: string } | undefined> {
  const cas = (await allCas(replica)).filter(authenticatesByExternalId);
  if (cas.length === 0) return undefined;
  const chain = peerChainOf(pems);
  const ca = chain && cas.find((candidate) => vouchesByExternalId(candidate, chain));
  const externalId = ca ? externalIdOf(ca, chain!.leaf) : undefined;
  return ca && externalId !== undefined ? { ca, externalId } : undefined;
}
