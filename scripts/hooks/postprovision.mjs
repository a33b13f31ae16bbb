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
 *   3. For each `queue` load source given an accountName: Storage Queue Data Reader on that one
 *      queue (the account is found by name; it may be in any resource group), which is all its
 *      approximate message count needs.
 * Role assignments need Owner or User Access Administrator, as `azd provision` itself does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { URL } from 'node:url';
import process from 'node:process';
import { linkedScopes } from '../linked-resources.mjs';
import { kubernetesRbac, readTargets, toYaml } from '../kubernetes-rbac.mjs';
import { AzError, az, say, scaleSetSubscription, scaleSetsOf } from './az.mjs';

const env = process.env;
const principal = env.DROVER_IDENTITY_PRINCIPAL_ID;
if (!principal) throw new Error('DROVER_IDENTITY_PRINCIPAL_ID is not set: run azd provision first');

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

const configFile = path.resolve('drover.config.yaml');

// 2. AKS.
const cluster = env.DROVER_AKS_CLUSTER_ID;
if (cluster) {
  const config = readTargets(configFile);
  const azureRbac = az(['aks', 'show', '--ids', cluster, '--query', 'aadProfile.enableAzureRbac']) === true;
  if (azureRbac) {
    const namespaces = new Set(
      (config.targets ?? []).filter((t) => ['Deployment', 'StatefulSet'].includes(t.scaleTargetRef.kind)).map((t) => t.scaleTargetRef.namespace ?? 'default'),
    );
    for (const namespace of namespaces) assign(env.DROVER_AKS_ROLE_ID, `${cluster}/namespaces/${namespace}`, 'Deployments and StatefulSets of this namespace');
  }
  const docs = kubernetesRbac(config, { principalId: principal, only: azureRbac ? 'custom' : 'all' });
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

// 3. Queue load sources read with the identity: `load` itself, or each of `load.sources`.
const QUEUE_READER = JSON.parse(readFileSync(new URL('../../infra/roles.json', import.meta.url), 'utf8')).storageQueueDataReader.id;
const queueSources = existsSync(configFile)
  ? (readTargets(configFile).targets ?? []).flatMap((t) => (Array.isArray(t.load?.sources) ? t.load.sources : [t.load])).filter((l) => l?.source === 'queue' && typeof l.accountName === 'string' && typeof l.queueName === 'string')
  : [];
for (const { accountName, queueName } of queueSources) {
  const ids = az(['resource', 'list', '--name', accountName, '--resource-type', 'Microsoft.Storage/storageAccounts', '--query', '[].id']) ?? [];
  if (ids.length !== 1) {
    say(`warning: storage account ${accountName} (a queue load source) ${ids.length ? 'is ambiguous' : 'was not found'} in this subscription; grant Storage Queue Data Reader on its queue ${queueName} by hand`);
    continue;
  }
  assign(QUEUE_READER, `${ids[0]}/queueServices/default/queues/${queueName}`, `queue load source ${accountName}/${queueName}`);
}
