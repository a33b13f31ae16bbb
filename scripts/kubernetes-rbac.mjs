#!/usr/bin/env node
/**
 * The Kubernetes Role and RoleBinding Drover's identity needs in each namespace it scales, from
 * the targets of a configuration: get on the Deployments and StatefulSets it reads, patch on
 * their scale subresource (Drover reads those workloads as objects, never their /scale), and
 * get and patch on the /scale of each other resource a target names (Azure RBAC cannot name those, so they always need this Role). Namespaced only:
 * no ClusterRole, no watch, create or delete, no other kind. Rules follow
 * src/kubernetes/operations.ts, which test/infra/least-privilege.test.ts holds this to. The load
 * sources add their kinds' Kubernetes grants to their namespace's Role (a `resource` source: get
 * and list on pods and pods.metrics.k8s.io, get on the target's /scale); no list otherwise.
 *
 * Usage: node scripts/kubernetes-rbac.mjs --principal-id <object id> [--config drover.config.yaml] [--only custom]
 *   prints the YAML for `kubectl apply -f -`. `--only custom` leaves out Deployments and
 *   StatefulSets, for a cluster where the Azure RBAC custom role covers them. The configuration
 *   is validated, and its sources' grants taken, by Drover's compiled code (npm run build first).
 */
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { configWithGrants } from './lib/compiled.mjs';

export const ROLE_NAME = 'drover-scaler';
const WORKLOADS = { Deployment: 'deployments', StatefulSet: 'statefulsets' };

/**
 * @param {{ targets?: { scaleTargetRef: Record<string, unknown> }[] }} config  a validated configuration
 * @param {{ principalId: string, only?: 'all' | 'custom', grants?: { grant: { kind: string, apiGroup?: string, resources?: string[], verbs?: string[], namespace?: string } }[] }} options
 *   `grants`: the load sources' grants (src/load/grants.ts sourceGrants, from each kind's
 *   `grants`); their Kubernetes rules join the Role of their namespace (the `resource` source:
 *   get and list on pods and pods.metrics.k8s.io).
 * @returns {object[]} Role and RoleBinding documents, per namespace
 */
export function kubernetesRbac(config, { principalId, only = 'all', grants = [] }) {
  if (!principalId) throw new Error('kubernetes-rbac: the identity\'s principal (object) id is needed for the RoleBinding');
  /** namespace → apiGroup → { objects, scales } */
  const byNamespace = new Map();
  for (const target of config.targets ?? []) {
    const ref = target.scaleTargetRef;
    // A pool's target reaches Azure, not Kubernetes.
    if (ref.kind === 'Pool') continue;
    const namespace = ref.namespace ?? 'default';
    const workload = Object.hasOwn(WORKLOADS, ref.kind) ? WORKLOADS[ref.kind] : undefined;
    if (workload && only === 'custom') continue;
    if (!workload && (typeof ref.group !== 'string' || typeof ref.plural !== 'string')) {
      throw new Error(`targets: ${JSON.stringify(ref.name ?? '?')} names neither a Deployment, a StatefulSet nor a group and plural; run npm run build to validate the configuration`);
    }
    const group = workload ? 'apps' : ref.group;
    const groups = byNamespace.get(namespace) ?? new Map();
    byNamespace.set(namespace, groups);
    const entry = groups.get(group) ?? { objects: new Set(), scales: new Set(), readScales: new Set() };
    groups.set(group, entry);
    if (workload) entry.objects.add(workload);
    else entry.readScales.add(`${ref.plural}/scale`);
    entry.scales.add(`${workload ?? ref.plural}/scale`);
  }
  const extra = sourceRules(grants);
  for (const namespace of extra.keys()) if (!byNamespace.has(namespace)) byNamespace.set(namespace, new Map());
  const docs = [];
  for (const [namespace, groups] of [...byNamespace].sort(([a], [b]) => a.localeCompare(b))) {
    const rules = [];
    for (const [group, { objects, scales, readScales }] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
      // Drover reads a Deployment or StatefulSet itself (spec.replicas survives 0) and only writes
      // its scale; any other resource it reads and writes through /scale alone.
      if (objects.size) rules.push({ apiGroups: [group], resources: [...objects].sort(), verbs: ['get'] });
      const both = [...scales].filter((r) => readScales.has(r)).sort();
      const patchOnly = [...scales].filter((r) => !readScales.has(r)).sort();
      if (patchOnly.length) rules.push({ apiGroups: [group], resources: patchOnly, verbs: ['patch'] });
      if (both.length) rules.push({ apiGroups: [group], resources: both, verbs: ['get', 'patch'] });
    }
    rules.push(...(extra.get(namespace) ?? []));
    const metadata = { name: ROLE_NAME, namespace, labels: { 'app.kubernetes.io/managed-by': 'drover' } };
    docs.push({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata, rules });
    docs.push({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata,
      // AKS names an Entra ID application or managed identity by its object id.
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: principalId }],
      roleRef: { kind: 'Role', apiGroup: 'rbac.authorization.k8s.io', name: ROLE_NAME },
    });
  }
  return docs;
}

/** The sources' Kubernetes grants as rules per namespace: one rule per API group and verbs, its resources merged. */
function sourceRules(grants) {
  const byNamespace = new Map();
  for (const { grant } of grants) {
    if (grant.kind !== 'kubernetesRole') continue;
    const rules = byNamespace.get(grant.namespace) ?? new Map();
    byNamespace.set(grant.namespace, rules);
    const verbs = [...grant.verbs].sort();
    const key = `${grant.apiGroup}|${verbs.join(',')}`;
    const rule = rules.get(key) ?? { apiGroups: [grant.apiGroup], resources: [], verbs };
    rule.resources = [...new Set([...rule.resources, ...grant.resources])].sort();
    rules.set(key, rule);
  }
  return new Map([...byNamespace].map(([namespace, rules]) => [namespace, [...rules.values()].sort((a, b) => `${a.apiGroups[0]}|${a.verbs}`.localeCompare(`${b.apiGroups[0]}|${b.verbs}`))]));
}

export function toYaml(docs) {
  return docs.map((d) => stringify(d)).join('---\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { config: { type: 'string', default: 'drover.config.yaml' }, 'principal-id': { type: 'string' }, only: { type: 'string', default: 'all' } } });
  const { config, grants } = await configWithGrants(path.resolve(values.config));
  process.stdout.write(toYaml(kubernetesRbac(config, { principalId: values['principal-id'], only: values.only, grants })));
}
