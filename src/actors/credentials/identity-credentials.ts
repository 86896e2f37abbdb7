// The credential commands an identity actor serves (enrollment, CA auto-enrollment, certificate
// login and extension): one entry point so the identity actor only names the operations.

import { unknownOperation } from '../../protocol/v1/message-fields.js';
import type { ActorMessage } from '../actor-host.js';
import { enrollWithCa } from './ca-auto-enroll.js';
import { extendCertificate, verifyExtendedCertificate } from './cert-extend.js';
import { loginWithCertificate } from './cert-login.js';
import type { CredentialDeps } from './credential-deps.js';
import { enrollIdentity } from './identity-enroll.js';
import { enrollWithToken } from './token-enroll.js';

/** Runs one credential command for identity `identityId`. */
export function handleCredentialCommand(deps: CredentialDeps, identityId: string, msg: ActorMessage): Promise<unknown> {
  switch (msg.op) {
    case 'enroll':
      return enrollIdentity(deps, identityId, msg);
    case 'enrollCa':
      return enrollWithCa(deps, identityId, msg);
    case 'enrollToken':
      return enrollWithToken(deps, identityId, msg);
    case 'loginCert':
      return loginWithCertificate(deps, identityId, msg);
    case 'extendCert':
      return extendCertificate(deps, identityId, msg);
    case 'extendCertVerify':
      return verifyExtendedCertificate(deps, identityId, msg);
    default:
      return Promise.reject(unknownOperation('credentials', msg.op));
  }
}
