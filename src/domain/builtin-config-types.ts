// Upstream's built-in config types, with upstream's ids, names and schemas: every node has them
// from its first start (tunnelers, SDKs and ZAC's Simple Service wizard use the fixed ids), and
// they cannot be changed or deleted through the API.

import {
  DIAL_OPTIONS,
  HEALTH_CHECK_DEFINITIONS,
  HEALTH_CHECK_PROPERTIES,
  HOST_V1_BODY,
  TUNNEL_DEFINITIONS,
  setOf,
} from './builtin-config-schemas.js';

/** A built-in config type as stored (target is always `service`). */
export interface BuiltinConfigType {
  id: string;
  name: string;
  schema: Record<string, unknown>;
}

const HOST_DEFINITIONS = { ...HEALTH_CHECK_DEFINITIONS, ...TUNNEL_DEFINITIONS };

const interfaces = (id: string): BuiltinConfigType => ({
  id,
  name: id,
  schema: {
    $id: `https://netfoundry.io/schemas/${id}.config.json`,
    type: 'object',
    additionalProperties: false,
    definitions: HEALTH_CHECK_DEFINITIONS,
    required: ['interfaces'],
    properties: { interfaces: { type: 'array', items: { type: 'string' } } },
  },
});

export const BUILTIN_CONFIG_TYPES: readonly BuiltinConfigType[] = [
  {
    id: 'f2dd2df0-9c04-4b84-a91e-71437ac229f1',
    name: 'ziti-tunneler-client.v1',
    schema: {
      $id: 'http://edge.openziti.org/schemas/ziti-tunneler-client.v1.config.json',
      type: 'object',
      additionalProperties: false,
      required: ['hostname', 'port'],
      properties: { hostname: { type: 'string' }, port: { type: 'integer', minimum: 0, maximum: 65535 } },
    },
  },
  {
    id: 'cea49285-6c07-42cf-9f52-09a9b115c783',
    name: 'ziti-tunneler-server.v1',
    schema: {
      $id: 'http://edge.openziti.org/schemas/ziti-tunneler-server.v1.config.json',
      type: 'object',
      additionalProperties: false,
      definitions: HEALTH_CHECK_DEFINITIONS,
      required: ['hostname', 'port'],
      properties: {
        protocol: { type: ['string', 'null'], enum: ['tcp', 'udp'] },
        hostname: { type: 'string' },
        port: { type: 'integer', minimum: 0, maximum: 65535 },
        ...HEALTH_CHECK_PROPERTIES,
      },
    },
  },
  {
    id: 'g7cIWbcGg',
    name: 'intercept.v1',
    schema: {
      $id: 'http://edge.openziti.org/schemas/intercept.v1.config.json',
      type: 'object',
      additionalProperties: false,
      definitions: TUNNEL_DEFINITIONS,
      properties: {
        ...DIAL_OPTIONS,
        protocols: setOf('protocolName'),
        addresses: setOf('listenAddress'),
        portRanges: setOf('portRange'),
        sourceIp: {
          type: 'string',
          description:
            "The source IP (and optional :port) to spoof when the connection is egressed from the hosting tunneler. '$tunneler_id.name' resolves to the name of the client tunneler's identity. '$tunneler_id.tag[tagName]' resolves to the value of the 'tagName' tag on the client tunneler's identity. '$src_ip' and '$src_port' resolve to the source IP / port of the originating client. '$dst_port' resolves to the port that the client is trying to connect.",
        },
        allowedSourceAddresses: setOf('listenAddress', 'white list of source ips/cidrs that can be intercepted. all ips can be intercepted if this is not set.'),
      },
      required: ['protocols', 'addresses', 'portRanges'],
    },
  },
  {
    id: 'NH5p4FpGR',
    name: 'host.v1',
    schema: { $id: 'http://ziti-edge.netfoundry.io/schemas/host.v1.schema.json', definitions: HOST_DEFINITIONS, ...HOST_V1_BODY },
  },
  {
    id: 'host.v2',
    name: 'host.v2',
    schema: {
      $id: 'http://ziti-edge.netfoundry.io/schemas/host.v2.schema.json',
      definitions: {
        ...HOST_DEFINITIONS,
        terminator: HOST_V1_BODY,
        terminatorList: { type: 'array', minItems: 1, items: { $ref: '#/definitions/terminator' } },
      },
      type: 'object',
      properties: { terminators: { $ref: '#/definitions/terminatorList' } },
      required: ['terminators'],
      additionalProperties: false,
    },
  },
  interfaces('interfaces.v1'),
  interfaces('host-interfaces.v1'),
  {
    id: 'proxy.v1',
    name: 'proxy.v1',
    schema: {
      $id: 'https://netfoundry.io/schemas/proxy.v1.config.json',
      type: 'object',
      additionalProperties: false,
      definitions: { protocol: { type: 'string', enum: ['tcp', 'udp'], description: 'Network protocol' } },
      required: ['port', 'protocols'],
      properties: {
        port: { type: 'number', minimum: 1, maximum: 65535, description: 'The port to listen on' },
        protocols: { type: 'array', minItems: 1, items: { $ref: '#/definitions/protocol' } },
        binding: { type: 'string' },
      },
    },
  },
];

const BUILTIN_IDS = new Set(BUILTIN_CONFIG_TYPES.map((t) => t.id));

export function isBuiltinConfigType(id: string): boolean {
  return BUILTIN_IDS.has(id);
}
