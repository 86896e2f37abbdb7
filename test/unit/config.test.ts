// parseConfig: defaults, WEFT_* variables, flags over variables, both flag spellings, and one
// validation rule per test with a message naming the key (`--flag / WEFT_VAR`).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLUSTER_SHUTDOWN_GRACE_MS, ConfigError, DEFAULTS, parseConfig, splitAddress, type Config } from '../../src/config.js';

function config(argv: string[], env: Record<string, string> = {}): Config {
  const result = parseConfig(argv, env);
  assert.notEqual(result, 'help');
  return result as Config;
}

function refuses(argv: string[], env: Record<string, string>, message: RegExp): void {
  assert.throws(
    () => parseConfig(argv, env),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
      assert.match(err.message, message);
      return true;
    },
  );
}

describe('parseConfig defaults', () => {
  it('uses the documented defaults with no flags and no variables', () => {
    assert.deepEqual(config([]), {
      listen: '127.0.0.1:1280',
      grpcListen: '127.0.0.1:1281',
      dataDir: './data',
      adminUsername: 'admin',
      clusterName: 'weft',
      logMaxAgeMs: 86_400_000,
      logMaxBytes: 0,
      clusterStartTimeoutMs: 60_000,
      shutdownGraceMs: 0,
      sessionTimeoutMinutes: 30,
      workerThreads: 2,
      workerPriority: 'background',
      mailboxSize: 64,
      cacheMb: 512,
      logLevel: 'info',
    });
  });

  it('leaves optional keys unset', () => {
    const c = config([]);
    for (const key of ['adminPassword', 'natsUrl', 'clusterSecret', 'clusterReplicas', 'tlsCert', 'tlsKey', 'nodeId', 'advertise'] as const) {
      assert.equal(c[key], undefined, key);
    }
  });

  it('does not modify the exported defaults', () => {
    config(['--listen', '0.0.0.0:9000', '--mailbox-size', '5']);
    assert.equal(DEFAULTS.listen, '127.0.0.1:1280');
    assert.equal(DEFAULTS.mailboxSize, 64);
  });

  it('ignores unrelated environment variables', () => {
    assert.equal(config([], { PATH: '/bin', LISTEN: 'x', WEFT_UNKNOWN: 'y' }).listen, '127.0.0.1:1280');
  });

  it('treats an empty variable as unset', () => {
    assert.equal(config([], { WEFT_LISTEN: '' }).listen, '127.0.0.1:1280');
    assert.equal(config([], { WEFT_ADMIN_PASSWORD: '' }).adminPassword, undefined);
  });
});

describe('parseConfig sources', () => {
  it('reads every WEFT_* variable', () => {
    const c = config([], {
      WEFT_LISTEN: '0.0.0.0:8443',
      WEFT_GRPC_LISTEN: '[::1]:0',
      WEFT_DATA_DIR: '/var/lib/weft',
      WEFT_ADMIN_USERNAME: 'root-admin',
      WEFT_ADMIN_PASSWORD: 'secret-pw',
      WEFT_NATS_URL: 'nats://a:4222,nats://b:4222',
      WEFT_CLUSTER_SECRET: 's'.repeat(32),
      WEFT_CLUSTER_PREVIOUS_SECRET: 'p'.repeat(32),
      WEFT_CLUSTER_NAME: 'east',
      WEFT_CLUSTER_REPLICAS: '3',
      WEFT_TLS_CERT: '/c.pem',
      WEFT_TLS_KEY: '/k.pem',
      WEFT_NODE_ID: 'node-1',
      WEFT_ADVERTISE: 'ctrl.example.com:8443',
      WEFT_SESSION_TIMEOUT_MINUTES: '45',
      WEFT_WORKER_THREADS: '4',
      WEFT_WORKER_PRIORITY: 'low',
      WEFT_MAILBOX_SIZE: '128',
      WEFT_CACHE_MB: '64',
      WEFT_LOG_LEVEL: 'debug',
      WEFT_SHUTDOWN_GRACE: '1500ms',
    });
    assert.deepEqual(c, {
      listen: '0.0.0.0:8443',
      grpcListen: '[::1]:0',
      dataDir: '/var/lib/weft',
      adminUsername: 'root-admin',
      adminPassword: 'secret-pw',
      natsUrl: 'nats://a:4222,nats://b:4222',
      clusterSecret: 's'.repeat(32),
      clusterPreviousSecret: 'p'.repeat(32),
      clusterName: 'east',
      clusterReplicas: 3,
      logMaxAgeMs: 86_400_000,
      logMaxBytes: 0,
      clusterStartTimeoutMs: 60_000,
      shutdownGraceMs: 1_500,
      tlsCert: '/c.pem',
      tlsKey: '/k.pem',
      nodeId: 'node-1',
      advertise: 'ctrl.example.com:8443',
      sessionTimeoutMinutes: 45,
      workerThreads: 4,
      workerPriority: 'low',
      mailboxSize: 128,
      cacheMb: 64,
      logLevel: 'debug',
    });
  });

  it('lets a flag win over its variable', () => {
    const env = { WEFT_LISTEN: '0.0.0.0:1', WEFT_MAILBOX_SIZE: '7', WEFT_DATA_DIR: '/env' };
    const c = config(['--listen', '10.0.0.1:2', '--mailbox-size=9'], env);
    assert.equal(c.listen, '10.0.0.1:2');
    assert.equal(c.mailboxSize, 9);
    assert.equal(c.dataDir, '/env');
  });

  it('accepts --flag value', () => {
    assert.equal(config(['--data-dir', '/tmp/w']).dataDir, '/tmp/w');
  });

  it('accepts --flag=value, keeping later = signs in the value', () => {
    assert.equal(config(['--data-dir=/tmp/w']).dataDir, '/tmp/w');
    assert.equal(config(['--admin-password=a=b=c']).adminPassword, 'a=b=c');
  });

  it('converts integer keys to numbers', () => {
    const c = config(['--session-timeout-minutes', '1', '--worker-threads=256', '--mailbox-size', '1000000', '--cache-mb', '2048']);
    assert.equal(c.cacheMb, 2048);
    assert.equal(c.sessionTimeoutMinutes, 1);
    assert.equal(c.workerThreads, 256);
    assert.equal(c.mailboxSize, 1_000_000);
  });

  it('accepts bracketed IPv6 and host names in addresses', () => {
    assert.equal(config(['--listen', '[::]:443']).listen, '[::]:443');
    assert.equal(config(['--grpc-listen', 'localhost:65535']).grpcListen, 'localhost:65535');
    assert.deepEqual(splitAddress('[::1]:1280'), { host: '::1', port: 1280 });
    assert.deepEqual(splitAddress('127.0.0.1:1280'), { host: '127.0.0.1', port: 1280 });
  });

  it("returns 'help' for --help and -h", () => {
    assert.equal(parseConfig(['--help'], {}), 'help');
    assert.equal(parseConfig(['-h'], {}), 'help');
    assert.equal(parseConfig(['--listen', 'bad', '--help'], {}), 'help');
  });
});

describe('parseConfig validation', () => {
  it('rejects an unknown flag given with a value', () => {
    refuses(['--bogus=1'], {}, /unknown flag --bogus/);
    refuses(['--bogus', '1'], {}, /unknown flag --bogus/);
  });

  it('rejects an unknown flag given without a value as unknown', () => {
    refuses(['--bogus'], {}, /unknown flag --bogus/);
  });

  it('rejects a bare argument', () => {
    refuses(['serve'], {}, /unexpected argument serve/);
  });

  it('rejects a flag missing its value', () => {
    refuses(['--listen'], {}, /--listen needs a value/);
    refuses(['--listen', '--data-dir', 'x'], {}, /--listen needs a value/);
  });

  it('rejects a listen port above 65535, naming --listen / WEFT_LISTEN', () => {
    refuses(['--listen', '127.0.0.1:65536'], {}, /--listen \/ WEFT_LISTEN must be host:port/);
  });

  it('rejects a listen address without a port, naming the key, from the variable too', () => {
    refuses([], { WEFT_LISTEN: '127.0.0.1' }, /--listen \/ WEFT_LISTEN must be host:port, got "127.0.0.1"/);
  });

  it('rejects a non-numeric listen port', () => {
    refuses(['--listen=host:http'], {}, /--listen \/ WEFT_LISTEN/);
  });

  it('rejects a bad gRPC address, naming --grpc-listen / WEFT_GRPC_LISTEN', () => {
    refuses(['--grpc-listen', ':1281'], {}, /--grpc-listen \/ WEFT_GRPC_LISTEN must be host:port/);
  });

  it('rejects a non-integer, naming the key and the value', () => {
    refuses(['--mailbox-size', 'abc'], {}, /--mailbox-size \/ WEFT_MAILBOX_SIZE must be an integer from 1 to 1000000, got "abc"/);
    refuses(['--cache-mb', '2'], {}, /--cache-mb \/ WEFT_CACHE_MB must be an integer from 4 to 1048576, got "2"/);
    refuses([], { WEFT_WORKER_THREADS: '1.5' }, /--worker-threads \/ WEFT_WORKER_THREADS must be an integer/);
  });

  it('rejects integers out of range', () => {
    refuses(['--worker-threads', '0'], {}, /--worker-threads \/ WEFT_WORKER_THREADS must be an integer from 1 to 256/);
    refuses(['--worker-threads', '257'], {}, /--worker-threads \/ WEFT_WORKER_THREADS/);
    refuses(['--session-timeout-minutes', '0'], {}, /--session-timeout-minutes \/ WEFT_SESSION_TIMEOUT_MINUTES/);
    refuses(['--mailbox-size=-5'], {}, /--mailbox-size \/ WEFT_MAILBOX_SIZE/);
  });

  it('rejects an unknown log level, listing the levels', () => {
    refuses(['--log-level', 'verbose'], {}, /--log-level \/ WEFT_LOG_LEVEL must be one of debug, info, warn, error, silent/);
  });

  it('rejects an unknown worker priority, listing the priorities', () => {
    refuses(['--worker-priority', 'idle'], {}, /--worker-priority \/ WEFT_WORKER_PRIORITY must be one of background, low, normal/);
    refuses([], { WEFT_WORKER_PRIORITY: '10' }, /WEFT_WORKER_PRIORITY must be one of/);
  });

  it('rejects a TLS certificate without its key', () => {
    refuses(['--tls-cert', '/c.pem'], {}, /--tls-cert \/ WEFT_TLS_CERT and --tls-key \/ WEFT_TLS_KEY must be given together/);
  });

  it('rejects a TLS key without its certificate', () => {
    refuses([], { WEFT_TLS_KEY: '/k.pem' }, /--tls-cert \/ WEFT_TLS_CERT and --tls-key/);
  });

  it('rejects a cluster secret shorter than 32 characters, naming the key', () => {
    refuses([], { WEFT_NATS_URL: 'nats://a:4222', WEFT_CLUSTER_SECRET: 's'.repeat(31) }, /--cluster-secret \/ WEFT_CLUSTER_SECRET must be at least 32 characters/);
    refuses([], { WEFT_NATS_URL: 'nats://a:4222', WEFT_CLUSTER_SECRET: 's'.repeat(32), WEFT_CLUSTER_PREVIOUS_SECRET: 'p'.repeat(31) }, /--cluster-previous-secret \/ WEFT_CLUSTER_PREVIOUS_SECRET must be at least 32 characters/);
  });

  it('rejects a cluster secret without NATS servers', () => {
    refuses(['--cluster-secret', 's'.repeat(40)], {}, /needs --nats-url \/ WEFT_NATS_URL/);
  });

  it('rejects a cluster name that is not one subject token', () => {
    refuses([], { WEFT_NATS_URL: 'nats://a:4222', WEFT_CLUSTER_SECRET: 's'.repeat(32), WEFT_CLUSTER_NAME: 'a.b' }, /--cluster-name \/ WEFT_CLUSTER_NAME must be/);
  });

  it('accepts an admin password of 5 to 100 characters', () => {
    assert.equal(config(['--admin-password', '12345']).adminPassword, '12345');
    assert.equal(config(['--admin-password', 'p'.repeat(100)]).adminPassword, 'p'.repeat(100));
  });

  it('rejects an admin password of 4 characters', () => {
    refuses(['--admin-password', '1234'], {}, /--admin-password \/ WEFT_ADMIN_PASSWORD must be 5 to 100 characters/);
  });

  it('rejects an admin password of 101 characters', () => {
    refuses([], { WEFT_ADMIN_PASSWORD: 'p'.repeat(101) }, /--admin-password \/ WEFT_ADMIN_PASSWORD must be 5 to 100 characters/);
  });

  it('rejects an admin username shorter than 4 characters', () => {
    refuses(['--admin-username', 'abc'], {}, /--admin-username \/ WEFT_ADMIN_USERNAME must be 4 to 100 characters/);
  });
});

describe('parseConfig log retention', () => {
  it('reads --log-max-age as a duration and WEFT_LOG_MAX_BYTES as a size', () => {
    const c = config(['--log-max-age', '90m'], { WEFT_LOG_MAX_BYTES: '512MB' });
    assert.equal(c.logMaxAgeMs, 90 * 60_000);
    assert.equal(c.logMaxBytes, 512_000_000);
    assert.equal(config(['--log-max-age=7d', '--log-max-bytes=8GiB']).logMaxBytes, 8 * 1024 ** 3);
  });

  it('takes 0 as no limit', () => {
    const c = config(['--log-max-age', '0', '--log-max-bytes', '0']);
    assert.equal(c.logMaxAgeMs, 0);
    assert.equal(c.logMaxBytes, 0);
  });

  it('refuses a max age without a unit', () => {
    refuses(['--log-max-age', '3600'], {}, /--log-max-age \/ WEFT_LOG_MAX_AGE must be a duration/);
  });

  it('refuses a max age shorter than the 2-minute duplicate window', () => {
    refuses([], { WEFT_LOG_MAX_AGE: '30s' }, /--log-max-age \/ WEFT_LOG_MAX_AGE must be 0 \(no limit\) or at least 2m/);
  });

  it('refuses a max size below 64 KiB or with an unknown unit', () => {
    refuses(['--log-max-bytes', '1000'], {}, /--log-max-bytes \/ WEFT_LOG_MAX_BYTES must be 0 \(no limit\) or at least 65536 bytes/);
    refuses(['--log-max-bytes', '5 parsecs'], {}, /--log-max-bytes \/ WEFT_LOG_MAX_BYTES must be a size/);
  });

  it('reads WEFT_CLUSTER_START_TIMEOUT as a duration, 0 meaning for ever', () => {
    assert.equal(config([], { WEFT_CLUSTER_START_TIMEOUT: '5m' }).clusterStartTimeoutMs, 300_000);
    assert.equal(config(['--cluster-start-timeout', '0']).clusterStartTimeoutMs, 0);
  });

  it('refuses a start timeout under 5 seconds, naming it in seconds', () => {
    refuses(['--cluster-start-timeout', '1s'], {}, /--cluster-start-timeout \/ WEFT_CLUSTER_START_TIMEOUT must be 0 \(no limit\) or at least 5s/);
  });
});

describe('parseConfig shutdown grace', () => {
  const cluster = { WEFT_NATS_URL: 'nats://a:4222', WEFT_CLUSTER_SECRET: 's'.repeat(32) };

  it('is 0 for an embedded node and CLUSTER_SHUTDOWN_GRACE_MS (3 s) in cluster mode', () => {
    assert.equal(config([]).shutdownGraceMs, 0);
    assert.equal(config([], { WEFT_NATS_URL: 'nats://a:4222' }).shutdownGraceMs, 0);
    assert.equal(CLUSTER_SHUTDOWN_GRACE_MS, 3_000);
    assert.equal(config([], cluster).shutdownGraceMs, 3_000);
  });

  it('takes the value given, 0 included, in either mode', () => {
    assert.equal(config(['--shutdown-grace', '0'], cluster).shutdownGraceMs, 0);
    assert.equal(config([], { ...cluster, WEFT_SHUTDOWN_GRACE: '500ms' }).shutdownGraceMs, 500);
    assert.equal(config(['--shutdown-grace=2s']).shutdownGraceMs, 2_000);
  });

  it('refuses a grace without a unit, saying what 0 means', () => {
    refuses([], { WEFT_SHUTDOWN_GRACE: '3' }, /--shutdown-grace \/ WEFT_SHUTDOWN_GRACE must be a duration such as .* \(or 0 for none\)/);
  });

  it('refuses a grace longer than 10 minutes', () => {
    refuses(['--shutdown-grace', '11m'], {}, /--shutdown-grace \/ WEFT_SHUTDOWN_GRACE must be at most 10m/);
  });
});
