// Secondary factors of an API session: TOTP owed (stored) and a required ext-jwt token missing
// from the request, and the auth queries in upstream's order and shape.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MFA_AUTH_QUERY } from '../../../src/domain/mfa-session.js';
import { authQueriesOf, extJwtAuthQuery, hasSecondaryOutstanding, isExtJwtOwed } from '../../../src/domain/secondary-auth.js';

const SIGNER = { id: 'sig1', externalAuthUrl: 'https://idp.example/auth', clientId: 'cli', scopes: ['openid'] };
const EXT_JWT = { typeId: 'EXT-JWT', provider: 'url', id: 'sig1', httpUrl: 'https://idp.example/auth', clientId: 'cli', scopes: ['openid'] };

describe('secondary factors', () => {
  it('owes the ext-jwt token only when a signer is required and the request lacks its token', () => {
    assert.equal(isExtJwtOwed({ requiredExtJwtSigner: 'sig1' }), true);
    assert.equal(isExtJwtOwed({ requiredExtJwtSigner: 'sig1', extJwtPassed: true }), false);
    assert.equal(isExtJwtOwed({ requiredExtJwtSigner: null }), false);
    assert.equal(isExtJwtOwed({}), false);
  });

  it('is partial while either factor is outstanding', () => {
    assert.equal(hasSecondaryOutstanding({}), false);
    assert.equal(hasSecondaryOutstanding({ isMfaRequired: true, isMfaComplete: false, requiredExtJwtSigner: 'sig1', extJwtPassed: true }), true);
    assert.equal(hasSecondaryOutstanding({ isMfaRequired: true, isMfaComplete: true, requiredExtJwtSigner: 'sig1' }), true);
    assert.equal(hasSecondaryOutstanding({ isMfaRequired: true, isMfaComplete: true, requiredExtJwtSigner: 'sig1', extJwtPassed: true }), false);
  });

  it('lists MFA first, then EXT-JWT', () => {
    assert.deepEqual(authQueriesOf({ isMfaRequired: true, requiredExtJwtSigner: 'sig1' }, SIGNER), [{ ...MFA_AUTH_QUERY }, EXT_JWT]);
    assert.deepEqual(authQueriesOf({ isMfaRequired: true, isMfaComplete: true, requiredExtJwtSigner: 'sig1' }, SIGNER), [EXT_JWT]);
    assert.deepEqual(authQueriesOf({ requiredExtJwtSigner: 'sig1', extJwtPassed: true }, SIGNER), []);
  });

  it('shows empty strings and no scopes for a signer without them', () => {
    assert.deepEqual(extJwtAuthQuery({ id: 'bare', externalAuthUrl: null, clientId: null, scopes: null }), {
      typeId: 'EXT-JWT', provider: 'url', id: 'bare', httpUrl: '', clientId: '', scopes: [],
    });
  });
});
