// The JSON Schema parts upstream's built-in config types are made of (health checks, tunneler
// definitions, listen and dial options, the host.v1 terminator). Data only, assembled by
// builtin-config-types.ts; the shapes follow upstream's controller/db/migration_initialize.go.

type Schema = Record<string, unknown>;

const MAX_PORT = 65535;
const MAX_INT32 = 2147483647;
const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });
/** A non-empty set of unique items, each matching the named definition. */
export const setOf = (name: string, description?: string): Schema => ({
  allOf: [ref('inhabitedSet'), { items: ref(name) }],
  ...(description ? { description } : {}),
});

/** Health check definitions and properties (portChecks, httpChecks) of server and host configs. */
export const HEALTH_CHECK_DEFINITIONS: Schema = {
  duration: { type: 'string', pattern: '[0-9]+(h|m|s|ms)' },
  method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH'] },
  action: {
    type: 'object',
    additionalProperties: false,
    required: ['trigger', 'action'],
    properties: {
      trigger: { type: 'string', enum: ['fail', 'pass', 'change'] },
      consecutiveEvents: { type: 'integer', minimum: 0, maximum: MAX_PORT },
      duration: ref('duration'),
      action: { type: 'string', pattern: '(mark (un)?healthy|increase cost [0-9]+|decrease cost [0-9]+|send event)' },
    },
  },
  actionList: { type: 'array', items: ref('action'), minItems: 1, maxItems: 20 },
  portCheck: {
    type: 'object',
    additionalProperties: false,
    required: ['interval', 'timeout', 'address'],
    properties: { interval: ref('duration'), timeout: ref('duration'), address: { type: 'string' }, actions: ref('actionList') },
  },
  httpCheck: {
    type: 'object',
    additionalProperties: false,
    required: ['interval', 'timeout', 'url'],
    properties: {
      url: { type: 'string' },
      method: ref('method'),
      body: { type: 'string' },
      interval: ref('duration'),
      timeout: ref('duration'),
      actions: ref('actionList'),
      expectStatus: { type: 'integer', minimum: 100, maximum: 599 },
      expectInBody: { type: 'string' },
    },
  },
  portCheckList: { type: 'array', items: ref('portCheck') },
  httpCheckList: { type: 'array', items: ref('httpCheck') },
};

export const HEALTH_CHECK_PROPERTIES: Schema = { portChecks: ref('portCheckList'), httpChecks: ref('httpCheckList') };

const addressTranslation = (format: 'ipv4' | 'ipv6', maxPrefix: number): Schema => ({
  type: 'object',
  additionalProperties: false,
  properties: {
    from: { type: 'string', format },
    to: { type: 'string', format },
    prefixLength: { type: 'integer', minimum: 0, maximum: maxPrefix },
  },
});

/** Definitions shared by the intercept and host config types. */
export const TUNNEL_DEFINITIONS: Schema = {
  dialAddress: { type: 'string', format: 'idn-hostname', not: { pattern: '^$' } },
  listenAddress: {
    type: 'string',
    format: 'idn-hostname',
    not: { pattern: '^$' },
    description:
      "idn-hostname allows ipv4 and ipv6 addresses, as well as hostnames that might happen to contain '*' and/or '/'. so idn-hostname allows every supported intercept address, although ip addresses, wildcards and cidrs are only being validated as hostnames by this format. client applications will need to look for _valid_ ips, cidrs, and wildcards when parsing intercept addresses and treat them accordingly. anything else should be interpreted as a dns label. this means e.g. that '1.2.3.4/56' should be treated as a dns label, since it is not a valid cidr",
  },
  inhabitedSet: { type: 'array', minItems: 1, uniqueItems: true },
  portNumber: { type: 'integer', minimum: 0, maximum: MAX_PORT },
  portRange: {
    type: 'object',
    additionalProperties: false,
    properties: { low: ref('portNumber'), high: ref('portNumber') },
    required: ['low', 'high'],
  },
  protocolName: { type: 'string', enum: ['tcp', 'udp'] },
  timeoutSeconds: { type: 'integer', minimum: 0, maximum: MAX_INT32 },
  proxyType: { type: 'string', enum: ['http'], description: 'supported proxy types' },
  proxyConfiguration: {
    type: 'object',
    required: ['type', 'address'],
    properties: {
      type: { ...ref('proxyType'), description: 'The type of the proxy being used' },
      address: { type: 'string', description: 'The address of the proxy in host:port format' },
    },
  },
  ipv4AddressTranslation: addressTranslation('ipv4', 32),
  ipv6AddressTranslation: addressTranslation('ipv6', 128),
  addressTranslation: { oneOf: [ref('ipv4AddressTranslation'), ref('ipv6AddressTranslation')] },
};

export const LISTEN_OPTIONS: Schema = {
  listenOptions: {
    type: 'object',
    additionalProperties: false,
    properties: {
      connectTimeoutSeconds: {
        ...ref('timeoutSeconds'),
        description: 'Timeout when making outbound connections. Defaults to 5. If both connectTimeoutSeconds and connectTimeout are specified, connectTimeout will be used.',
        deprecated: true,
      },
      connectTimeout: {
        ...ref('duration'),
        description: "Timeout when making outbound connections. Defaults to '5s'. If both connectTimeoutSeconds and connectTimeout are specified, connectTimeout will be used.",
      },
      maxConnections: { type: 'integer', minimum: 1, description: 'defaults to 3' },
      identity: {
        type: 'string',
        description:
          "Associate the hosting terminator with the specified identity. '$tunneler_id.name' resolves to the name of the hosting tunneler's identity. '$tunneler_id.tag[tagName]' resolves to the value of the 'tagName' tag on the hosting tunneler's identity.",
      },
      bindUsingEdgeIdentity: {
        type: 'boolean',
        description: "Associate the hosting terminator with the name of the hosting tunneler's identity. Setting this to 'true' is equivalent to setting 'identiy=$tunneler_id.name'",
      },
      cost: { type: 'integer', minimum: 0, maximum: 65535, description: 'defaults to 0' },
      precedence: { type: 'string', enum: ['default', 'required', 'failed'], description: "defaults to 'default'" },
    },
  },
};

export const DIAL_OPTIONS: Schema = {
  dialOptions: {
    type: 'object',
    additionalProperties: false,
    properties: {
      identity: {
        type: 'string',
        description: "Dial a terminator with the specified identity. '$dst_protocol', '$dst_ip', '$dst_port are resolved to the corresponding value of the destination address.",
      },
      connectTimeoutSeconds: {
        ...ref('timeoutSeconds'),
        description: 'defaults to 5 seconds if no dialOptions are defined. defaults to 15 if dialOptions are defined but connectTimeoutSeconds is not specified.',
      },
    },
  },
};

/** `forward<X>: true` requires `allowed<Y>`, otherwise `<x>` is required. */
const forwardOr = (forward: string, allowed: string, fixed: string): Schema => ({
  if: { properties: { [forward]: { const: true } }, required: [forward] },
  then: { required: [allowed] },
  else: { required: [fixed] },
});

/** host.v1 without `$id` and `definitions`: also the terminator of host.v2. */
export const HOST_V1_BODY: Schema = {
  type: 'object',
  properties: {
    ...HEALTH_CHECK_PROPERTIES,
    protocol: { ...ref('protocolName'), description: 'Dial the specified protocol when a ziti client connects to the service.' },
    forwardProtocol: {
      type: 'boolean',
      enum: [true],
      description: "Dial the same protocol that was intercepted at the client tunneler. 'protocol' and 'forwardProtocol' are mutually exclusive.",
    },
    allowedProtocols: setOf('protocolName', 'Only allow protocols from this set to be dialed'),
    address: { ...ref('dialAddress'), description: 'Dial the specified ip address or hostname when a ziti client connects to the service.' },
    forwardAddress: {
      type: 'boolean',
      enum: [true],
      description: "Dial the same ip address that was intercepted at the client tunneler. 'address' and 'forwardAddress' are mutually exclusive.",
    },
    allowedAddresses: setOf('listenAddress', 'Only allow addresses from this set to be dialed'),
    forwardAddressTranslations: setOf('addressTranslation', 'Translate forwarded addresses according to this table'),
    port: { ...ref('portNumber'), description: 'Dial the specified port when a ziti client connects to the service.' },
    forwardPort: {
      type: 'boolean',
      enum: [true],
      description: "Dial the same port that was intercepted at the client tunneler. 'port' and 'forwardPort' are mutually exclusive.",
    },
    allowedPortRanges: setOf('portRange', 'Only allow ports from this set to be dialed'),
    allowedSourceAddresses: setOf('listenAddress', 'hosting tunnelers establish local routes for the specified source addresses so binding will succeed'),
    proxy: { ...ref('proxyConfiguration'), description: 'If defined, outgoing connections will be send through this proxy server' },
    ...LISTEN_OPTIONS,
  },
  additionalProperties: false,
  allOf: [
    forwardOr('forwardProtocol', 'allowedProtocols', 'protocol'),
    forwardOr('forwardAddress', 'allowedAddresses', 'address'),
    forwardOr('forwardPort', 'allowedPortRanges', 'port'),
  ],
};
