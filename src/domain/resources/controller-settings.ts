// Controller settings: `global` (created at first start) and per-controller overrides whose id
// is the controller's id. The effective settings of a controller are global's, overridden by its
// own (see controller-settings-routes).

import { ApiError } from '../../errors.js';
import type { ResourceDecl } from '../resource.js';

export const GLOBAL_CONTROLLER_SETTINGS = 'global';

export const controllerSettings: ResourceDecl<'controller-settings'> = {
  kind: 'controller-settings',
  entity: 'controller-setting',
  actor: 'catalog',
  description: 'Controller settings: global, and per controller (OIDC redirect and post-logout URIs)',
  ops: { list: 'admin', get: 'admin' },
  guardDelete: (record) => {
    if (record.id === GLOBAL_CONTROLLER_SETTINGS) {
      throw new ApiError('ENTITY_CAN_NOT_BE_DELETED', { code: 'UNHANDLED', message: 'the global controller settings cannot be deleted' });
    }
  },
  fields: {
    oidc: {
      type: 'object',
      nullable: true,
      default: null,
      properties: {
        redirectUris: { type: 'stringList', maxLength: 2048 },
        postLogoutUris: { type: 'stringList', maxLength: 2048 },
      },
    },
  },
};
