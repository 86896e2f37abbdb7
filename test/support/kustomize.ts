// Test support: renders a kustomization offline the way `kubectl kustomize` does for the features
// deploy/kubernetes uses (resources, namespace, labels, images), and checks the Kubernetes objects
// it yields: their schemas (kubernetes-models, generated from the Kubernetes OpenAPI schemas) and
// the references between them (selectors, services, config maps, secrets, ports, volumes).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Namespace, ConfigMap, Service, Secret } from 'kubernetes-models/v1';
import { StatefulSet } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';

/** A Kubernetes object as parsed from YAML. */
export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; [key: string]: any };

/** Parses every document of a YAML text (with `<<` merge keys); throws on any YAML error. */
export function parseYamlDocuments(text: string): any[] {
  const docs = parseAllDocuments(text, { merge: true });
  const list = Array.isArray(docs) ? docs : [docs];
  for (const doc of list) if (doc.errors.length > 0) throw new Error(doc.errors.map((e) => e.message).join('; '));
  return list.map((doc) => doc.toJS()).filter((value) => value !== null && value !== undefined);
}

const CLUSTER_SCOPED = new Set(['Namespace']);

/** Renders `dir/kustomization.yaml` (resources, namespace, labels.pairs, images). */
export function renderKustomization(dir: string, edit: (objects: K8sObject[]) => void = () => undefined): K8sObject[] {
  const [k] = parseYamlDocuments(readFileSync(join(dir, 'kustomization.yaml'), 'utf8'));
  const known = new Set(['apiVersion', 'kind', 'namespace', 'labels', 'resources', 'images']);
  for (const key of Object.keys(k)) if (!known.has(key)) throw new Error(`kustomization field ${key} is not rendered by this test; extend renderKustomization`);
  const objects: K8sObject[] = [];
  for (const file of k.resources as string[]) objects.push(...(parseYamlDocuments(readFileSync(join(dir, file), 'utf8')) as K8sObject[]));
  edit(objects);
  for (const o of objects) {
    if (k.namespace && !CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = k.namespace;
    for (const entry of k.labels ?? []) {
      if (entry.includeSelectors || entry.includeTemplates) throw new Error('labels with includeSelectors/includeTemplates are not rendered by this test');
      o.metadata.labels = { ...o.metadata.labels, ...entry.pairs };
    }
    for (const c of containersOf(o)) {
      for (const image of k.images ?? []) {
        const [name] = String(c.image).split(':');
        if (name === image.name) c.image = `${image.newName ?? name}:${image.newTag ?? 'latest'}`;
      }
    }
  }
  return objects;
}

const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'v1/Namespace': Namespace,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'v1/Secret': Secret,
  'apps/v1/StatefulSet': StatefulSet,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
};

/** Schema errors of one object (`[]` when valid); an object of an unknown kind is an error. */
export function schemaErrors(o: K8sObject): string[] {
  const Model = MODELS[`${o.apiVersion}/${o.kind}`];
  if (!Model) return [`${o.kind} ${o.metadata?.name}: no schema known for ${o.apiVersion}/${o.kind}`];
  try {
    new Model(o).validate();
    return [];
  } catch (err) {
    return [`${o.kind} ${o.metadata.name}: ${(err as Error).message}`];
  }
}

export function containersOf(o: K8sObject): any[] {
  return o.spec?.template?.spec?.containers ?? [];
}

function matches(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

/**
 * The broken references among `objects`: selectors that match no pod template, a StatefulSet
 * whose serviceName is no headless Service, service target ports no container declares, config
 * maps, secrets (unless in `externalSecrets`), probe ports and volume mounts that do not exist.
 */
export function referenceErrors(objects: K8sObject[], externalSecrets: ReadonlySet<string>): string[] {
  const errors: string[] = [];
  const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
  const workloads = byKind('StatefulSet');
  const names = (kind: string) => new Set(byKind(kind).map((o) => o.metadata.name));
  const configMaps = names('ConfigMap');
  const secrets = new Set([...names('Secret'), ...externalSecrets]);
  const namespaces = names('Namespace');
  for (const o of objects) {
    if (o.metadata.namespace && !namespaces.has(o.metadata.namespace)) errors.push(`${o.kind} ${o.metadata.name}: namespace ${o.metadata.namespace} is not created`);
  }
  for (const sts of workloads) {
    const where = `StatefulSet ${sts.metadata.name}`;
    const template = sts.spec.template;
    if (!matches(sts.spec.selector?.matchLabels, template.metadata?.labels)) errors.push(`${where}: selector does not match its pod template labels`);
    const governing = byKind('Service').find((s) => s.metadata.name === sts.spec.serviceName);
    if (!governing || governing.spec.clusterIP !== 'None') errors.push(`${where}: serviceName ${sts.spec.serviceName} is not a headless Service`);
    const volumes = new Set([...(template.spec.volumes ?? []).map((v: any) => v.name), ...(sts.spec.volumeClaimTemplates ?? []).map((v: any) => v.metadata.name)]);
    for (const v of template.spec.volumes ?? []) {
      if (v.configMap && !configMaps.has(v.configMap.name)) errors.push(`${where}: volume ${v.name} uses missing ConfigMap ${v.configMap.name}`);
      if (v.secret && !secrets.has(v.secret.secretName)) errors.push(`${where}: volume ${v.name} uses missing Secret ${v.secret.secretName}`);
    }
    for (const c of template.spec.containers) {
      const ports = new Set((c.ports ?? []).flatMap((p: any) => [p.name, p.containerPort]));
      for (const from of c.envFrom ?? []) if (from.configMapRef && !configMaps.has(from.configMapRef.name)) errors.push(`${where}: envFrom uses missing ConfigMap ${from.configMapRef.name}`);
      for (const env of c.env ?? []) {
        const ref = env.valueFrom?.secretKeyRef;
        if (ref && !secrets.has(ref.name)) errors.push(`${where}: env ${env.name} uses Secret ${ref.name}, which is neither rendered nor documented`);
        const cm = env.valueFrom?.configMapKeyRef;
        if (cm && !configMaps.has(cm.name)) errors.push(`${where}: env ${env.name} uses missing ConfigMap ${cm.name}`);
      }
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
        const port = c[probe]?.httpGet?.port ?? c[probe]?.tcpSocket?.port;
        if (port !== undefined && !ports.has(port)) errors.push(`${where}: ${probe} uses port ${port}, which container ${c.name} does not declare`);
      }
      for (const m of c.volumeMounts ?? []) if (!volumes.has(m.name)) errors.push(`${where}: volumeMount ${m.name} has no volume`);
    }
  }
  for (const svc of byKind('Service')) {
    const targets = workloads.filter((w) => matches(svc.spec.selector, w.spec.template.metadata?.labels));
    if (targets.length === 0) errors.push(`Service ${svc.metadata.name}: selector matches no pod template`);
    for (const port of svc.spec.ports ?? []) {
      const target = port.targetPort ?? port.port;
      for (const w of targets) {
        const declared = containersOf(w).some((c) => (c.ports ?? []).some((p: any) => p.name === target || p.containerPort === target));
        if (!declared) errors.push(`Service ${svc.metadata.name}: port ${port.name} targets ${target}, which StatefulSet ${w.metadata.name} does not declare`);
      }
    }
  }
  for (const pdb of byKind('PodDisruptionBudget')) {
    if (!workloads.some((w) => matches(pdb.spec.selector?.matchLabels, w.spec.template.metadata?.labels))) errors.push(`PodDisruptionBudget ${pdb.metadata.name}: selector matches no pod template`);
  }
  return errors;
}
