#!/usr/bin/env node
/**
 * azd postprovision: the assignments whose scope a deployment cannot know in advance.
 *   1. The linked-resource role on each resource the scale set models reference (subnets, load
 *      balancers, identities, images: scripts/linked-resources.mjs), read with `az vmss show`.
 *   2. For AKS (DROVER_AKS_CLUSTER_ID): with Azure RBAC for Kubernetes authorization, the AKS
 *      workload scaler role on each namespace holding a Deployment or StatefulSet target; and,
 *      for every other /scale resource (or every target, on a cluster with Kubernetes RBAC), the
 *      namespaced Role of scripts/kubernetes-rbac.mjs, written to dist/kubernetes-rbac.yaml and
 *      applied with kubectl only when DROVER_APPLY_KUBERNETES_RBAC=true (it needs the
 *      operator's own cluster rights); otherwise the command to run is printed.
 *      The Role includes the Kubernetes grants of the load sources (a `resource` source: get and
 *      list on pods and pods.metrics.k8s.io in its namespace).
 *   3. The Azure roles the load sources need, as each kind's `grants` declare them
 *      (scripts/lib/source-assignments.mjs): Storage Queue Data Reader on a `queue` source's one
 *      queue, Reader on a `serviceBus` source's one entity, Monitoring Reader on an `azureMonitor`
 *      source's resource, Monitoring Data Reader on the workspace of a `prometheus` source with
 *      `auth: azure`. A resource found by name or endpoint may be in any resource group of the
 *      subscription; one that is missing or ambiguous, or an assignment az refuses, is a warning
 *      naming the source and the scope, and the other assignments are still made.
 * The configuration is validated and its grants taken with Drover's compiled code (dist/src:
 * npm run build, which azd runs before it provisions). Role assignments need Owner or User
 * Access Administrator, as `azd provision` itself does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { linkedScopes } from '../linked-resources.mjs';
import { kubernetesRbac, toYaml } from '../kubernetes-rbac.mjs';
import { configWithGrants } from '../lib/compiled.mjs';
import { lookupsOf, sourceAssignments } from '../lib/source-assignments.mjs';
import { AzError, az, say, scaleSetSubscription, scaleSetsOf } from './az.mjs';

const env = process.env;
const principal = env.DROVER_IDENTITY_PRINCIPAL_ID;
if (!principal) throw new Error('DROVER_IDENTITY_PRINCIPAL_ID is not set: run azd provision first');

// Validated, with its sources' grants, before anything is assigned: a configuration the build would refuse stops here.
const configFile = path.resolve('drover.config.yaml');
const { config, grants } = existsSync(configFile) ? await configWithGrants(configFile) : { config: { targets: [] }, grants: [] };

/** Idempotent: a re-run of `azd provision` finds the assignments it made before. */
const assign = (role, scope, why) => {
  say(`assigning ${role.split('/').pop()} on ${scope} (${why})`);
  try {
    az(['role', 'assignment', 'create', '--assignee-object-id', principal, '--assignee-principal-type', 'ServicePrincipal', '--role', role, '--scope', scope]);
  } catch (error) {
    if (!(error instanceof AzError && /RoleAssignmentExists|already exists/i.test(error.message))) throw error;
    say('  already assigned');
  }
};

// 1. Linked resources of the scale set models.
const subscription = scaleSetSubscription();
for (const { resourceGroup, name } of scaleSetsOf()) {
  const model = az(['vmss', 'show', '--resource-group', resourceGroup, '--name', name, ...(subscription ? ['--subscription', subscription] : [])]);
  const { scopes, unknown } = linkedScopes(model);
  for (const { scope, type, from } of scopes) assign(env.DROVER_LINKED_ROLE_ID, scope, `${type}, referenced at ${from} of ${resourceGroup}/${name}`);
  for (const { id, from } of unknown) say(`warning: ${resourceGroup}/${name} references ${id} at ${from}, a type with no linked action known; if scale-out is refused, grant it by hand`);
}

// 2. AKS.
const cluster = env.DROVER_AKS_CLUSTER_ID;
if (cluster) {
  const azureRbac = az(['aks', 'show', '--ids', cluster, '--query', 'aadProfile.enableAzureRbac']) === true;
  if (azureRbac) {
    const namespaces = new Set(config.targets.filter((t) => ['Deployment', 'StatefulSet'].includes(t.scaleTargetRef.kind)).map((t) => t.scaleTargetRef.namespace ?? 'default'));
    for (const namespace of namespaces) assign(env.DROVER_AKS_ROLE_ID, `${cluster}/namespaces/${namespace}`, 'Deployments and StatefulSets of this namespace');
  }
  const docs = kubernetesRbac(config, { principalId: principal, only: azureRbac ? 'custom' : 'all', grants });
  if (docs.length > 0) {
    const file = path.resolve('dist/kubernetes-rbac.yaml');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, toYaml(docs));
    if (env.DROVER_APPLY_KUBERNETES_RBAC === 'true') {
      execFileSync('kubectl', ['apply', '-f', file], { stdio: 'inherit' });
    } else {
      say(`the namespaced Role Drover needs is in ${file}; apply it with your own cluster rights: kubectl apply -f ${file}`);
    }
  }
}

// 3. The load sources' Azure roles, from their kinds' grants.
const { assignments, unplaced } = sourceAssignments(grants, { principalId: principal, resources: listResources(lookupsOf(grants)) });
for (const { message } of unplaced) say(`warning: ${message}`);
for (const { role, roleName, scope, sources, why } of assignments) {
  try {
    assign(role, scope, `${roleName}, ${why}; for ${sources.join(', ')}`);
  } catch (error) {
    if (!(error instanceof AzError)) throw error;
    say(`warning: ${sources.join(', ')}: ${roleName} on ${scope} could not be assigned (${error.message}); assign it by hand`);
  }
}

/** The resources of each looked-up type in the subscription; the full ones (with `properties`) when matching needs them. */
function listResources(lookups) {
  const found = {};
  for (const { resourceType, needsProperties } of lookups) {
    const listed = az(['resource', 'list', '--resource-type', resourceType]) ?? [];
    const full = needsProperties && listed.length > 0 ? az(['resource', 'show', '--ids', ...listed.map((r) => r.id)]) : listed;
    found[resourceType] = Array.isArray(full) ? full : [full];
  }
  return found;
}
