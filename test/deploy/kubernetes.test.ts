// deploy/kubernetes, validated offline: the kustomization renders (here, and with `kubectl
// kustomize`), every object passes its Kubernetes schema, references
// between objects hold, the NATS configuration passes `nats-server -t` and is a JetStream cluster
// the Weft nodes point at, the Weft settings pass the node's own config parser, and scaling to
// five replicas is one number.

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../../src/config.js';
import { DRAIN_TIMEOUT_MS } from '../../src/listener-drain.js';
import { findNatsServer } from '../support/nats-server.js';
import { containersOf, parseYamlDocuments, referenceErrors, renderKustomization, schemaErrors, type K8sObject } from '../support/kustomize.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const DIR = join(REPO, 'deploy', 'kubernetes');
const README = readFileSync(join(REPO, 'deploy', 'README.md'), 'utf8');

/** Secrets the operator creates (deploy/README.md shows the command); the manifests only refer to them. */
const EXTERNAL_SECRETS = new Set(['weft-cluster', 'weft-admin']);

const find = (objects: K8sObject[], kind: string, name: string) => {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  assert.ok(o, `${kind} ${name} is rendered`);
  return o;
};
const envOf = (sts: K8sObject) => containersOf(sts)[0].env as { name: string; value?: string; valueFrom?: any }[];

function kubectl(): string | undefined {
  if (process.env.KUBECTL_BIN && existsSync(process.env.KUBECTL_BIN)) return process.env.KUBECTL_BIN;
  return (process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'kubectl')).find((p) => existsSync(p));
}

describe('deploy/kubernetes', () => {
  const objects = renderKustomization(DIR);
  const tmp = mkdtempSync(join(tmpdir(), 'weft-deploy-k8s-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('renders the namespace, config, services, both StatefulSets and their disruption budgets', () => {
    const kinds = objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();
    assert.deepEqual(kinds, [
      'ConfigMap/nats-config', 'ConfigMap/weft-config', 'Namespace/weft',
      'PodDisruptionBudget/nats', 'PodDisruptionBudget/weft',
      'Service/nats', 'Service/weft', 'Service/weft-headless',
      'StatefulSet/nats', 'StatefulSet/weft',
    ]);
    for (const o of objects) if (o.kind !== 'Namespace') assert.equal(o.metadata.namespace, 'weft', `${o.kind} ${o.metadata.name}`);
  });

  it('kubectl kustomize renders the same objects', () => {
    const bin = kubectl();
    // The offline render above is the one every check uses; kubectl confirms it (the test
    // command installs Debian's kubectl when it is missing).
    assert.ok(bin, 'kubectl not found: run the tests with `npm test`, which installs it, or set KUBECTL_BIN');
    const rendered = parseYamlDocuments(execFileSync(bin, ['kustomize', DIR], { encoding: 'utf8' })) as K8sObject[];
    const key = (o: K8sObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    assert.deepEqual(rendered.map(key).sort(), objects.map(key).sort());
    assert.deepEqual(find(rendered, 'StatefulSet', 'weft').spec, find(objects, 'StatefulSet', 'weft').spec);
    assert.deepEqual(find(rendered, 'ConfigMap', 'weft-config').data, find(objects, 'ConfigMap', 'weft-config').data);
  });

  it('every object passes its Kubernetes schema', () => {
    assert.deepEqual(objects.flatMap(schemaErrors), []);
  });

  it('the schema check refuses a malformed object (a port that is not a number)', () => {
    const broken = structuredClone(find(objects, 'StatefulSet', 'weft'));
    containersOf(broken)[0].ports[0].containerPort = 'https';
    assert.equal(schemaErrors(broken).length, 1);
  });

  it('references hold: selectors, the governing service, config maps, secrets, ports, volumes', () => {
    assert.deepEqual(referenceErrors(objects, EXTERNAL_SECRETS), []);
  });

  it('the reference check finds a selector that matches nothing and an unknown ConfigMap', () => {
    const broken = structuredClone(objects);
    find(broken, 'PodDisruptionBudget', 'weft').spec.selector.matchLabels = { 'app.kubernetes.io/name': 'wefty' };
    containersOf(find(broken, 'StatefulSet', 'weft'))[0].envFrom[0].configMapRef.name = 'no-such-config';
    const errors = referenceErrors(broken, EXTERNAL_SECRETS);
    assert.equal(errors.length, 2, errors.join('\n'));
  });

  it('each secret the operator creates is shown in deploy/README.md with its key', () => {
    for (const ref of envOf(find(objects, 'StatefulSet', 'weft')).map((e) => e.valueFrom?.secretKeyRef).filter(Boolean)) {
      assert.ok(EXTERNAL_SECRETS.has(ref.name));
      assert.match(README, new RegExp(`create secret generic ${ref.name} --from-literal=${ref.key}=`), `README shows how to create ${ref.name}`);
    }
  });

  it('Weft runs three nodes in cluster mode: node id from the pod name, the cluster secret from a Secret', () => {
    const weft = find(objects, 'StatefulSet', 'weft');
    assert.equal(weft.spec.replicas, 3);
    const env = envOf(weft);
    assert.deepEqual(env.find((e) => e.name === 'WEFT_NODE_ID')?.valueFrom, { fieldRef: { fieldPath: 'metadata.name' } });
    assert.deepEqual(env.find((e) => e.name === 'WEFT_CLUSTER_SECRET')?.valueFrom, { secretKeyRef: { name: 'weft-cluster', key: 'secret' } });
    const admin = env.find((e) => e.name === 'WEFT_ADMIN_PASSWORD')?.valueFrom.secretKeyRef;
    assert.equal(admin.optional, true);
  });

  it('Weft probes: readiness on GET /readyz, liveness and startup on GET /healthz, over HTTPS', () => {
    const c = containersOf(find(objects, 'StatefulSet', 'weft'))[0];
    assert.deepEqual(c.readinessProbe.httpGet, { path: '/readyz', port: 'https', scheme: 'HTTPS' });
    assert.deepEqual(c.livenessProbe.httpGet, { path: '/healthz', port: 'https', scheme: 'HTTPS' });
    assert.deepEqual(c.startupProbe.httpGet, { path: '/healthz', port: 'https', scheme: 'HTTPS' });
  });

  it('the Service in front of Weft passes TCP through (no TLS termination) to both ports', () => {
    const svc = find(objects, 'Service', 'weft');
    assert.deepEqual(svc.spec.ports.map((p: any) => [p.port, p.protocol]), [[1280, 'TCP'], [1281, 'TCP']]);
    assert.equal(objects.some((o) => o.kind === 'Ingress'), false);
  });

  it('the disruption budgets let one Weft node and one NATS server go at a time', () => {
    assert.equal(find(objects, 'PodDisruptionBudget', 'weft').spec.maxUnavailable, 1);
    assert.equal(find(objects, 'PodDisruptionBudget', 'nats').spec.maxUnavailable, 1);
  });

  /** The ConfigMap's settings through the node's config parser (with the secret the Secret provides). */
  const weftConfig = () => {
    const data = find(objects, 'ConfigMap', 'weft-config').data as Record<string, string>;
    const config = parseConfig([], { ...data, WEFT_CLUSTER_SECRET: 'x'.repeat(40), WEFT_NODE_ID: 'weft-0' });
    assert.notEqual(config, 'help');
    return config as Exclude<typeof config, 'help'>;
  };

  it('the Weft settings pass the node\'s config parser (with the secret the Secret provides)', () => {
    const config = weftConfig();
    assert.equal(config.clusterReplicas, 3);
    assert.equal(config.natsUrl?.split(',').length, 3);
  });

  it('a pod is given time to stop: its shutdown grace, the drain of requests in flight and leaving the cluster', () => {
    const config = weftConfig();
    assert.equal(config.shutdownGraceMs, 5_000);
    const allowed = find(objects, 'StatefulSet', 'weft').spec.template.spec.terminationGracePeriodSeconds as number;
    assert.ok(allowed * 1000 >= config.shutdownGraceMs + DRAIN_TIMEOUT_MS + 5_000, `terminationGracePeriodSeconds ${allowed} covers the grace, the drain and leaving`);
  });

  it('NATS is a three-server JetStream cluster that nats-server -t accepts, and Weft points at every server', () => {
    const nats = find(objects, 'StatefulSet', 'nats');
    const replicas = nats.spec.replicas as number;
    assert.equal(replicas, 3);
    const conf = find(objects, 'ConfigMap', 'nats-config').data['nats.conf'] as string;
    const file = join(tmp, 'nats.conf');
    writeFileSync(file, conf);
    for (let i = 0; i < replicas; i++) {
      const run = spawnSync(findNatsServer(), ['-t', '-c', file], { env: { ...process.env, SERVER_NAME: `nats-${i}` }, encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stderr + run.stdout, /is valid/);
    }
    assert.match(conf, /^server_name: \$SERVER_NAME$/m);
    assert.match(conf, /^jetstream \{[^}]*store_dir: \/data/m);
    assert.match(conf, /^cluster \{[^}]*name: \S+/m);
    const headless = find(objects, 'Service', nats.spec.serviceName);
    assert.equal(headless.spec.clusterIP, 'None');
    assert.equal(headless.spec.publishNotReadyAddresses, true);
    const routes = [...conf.matchAll(/nats:\/\/([\w.-]+):6222/g)].map((m) => m[1]).sort();
    assert.deepEqual(routes, Array.from({ length: replicas }, (_, i) => `nats-${i}.${headless.metadata.name}`));
    const env = containersOf(nats)[0].env.find((e: any) => e.name === 'SERVER_NAME');
    assert.deepEqual(env.valueFrom, { fieldRef: { fieldPath: 'metadata.name' } });
    const urls = String(find(objects, 'ConfigMap', 'weft-config').data.WEFT_NATS_URL).split(',');
    assert.deepEqual(urls, Array.from({ length: replicas }, (_, i) => `nats://nats-${i}.${headless.metadata.name}:4222`));
  });

  it('scaling to five Weft nodes is one number: the render with replicas 5 passes every check', () => {
    const five = renderKustomization(DIR, (objs) => {
      find(objs, 'StatefulSet', 'weft').spec.replicas = 5;
    });
    assert.equal(find(five, 'StatefulSet', 'weft').spec.replicas, 5);
    assert.deepEqual(five.flatMap(schemaErrors), []);
    assert.deepEqual(referenceErrors(five, EXTERNAL_SECRETS), []);
    // Nothing else names Weft pods: no setting lists them, so no other number has to change.
    for (const o of five) if (o.kind !== 'StatefulSet' || o.metadata.name !== 'weft') assert.doesNotMatch(JSON.stringify(o), /weft-[0-9]/, `${o.kind} ${o.metadata.name}`);
  });
});
