/**
 * The Azure role assignments the post-provision hook makes for the load sources
 * (scripts/lib/source-assignments.mjs), from each kind's own `grants` as src/load/grants.ts
 * gathers them: one row per kind, the configuration and the resources the hook listed in, the
 * assignments (or the warning) out. And nothing broader than the kinds declare: every scope is
 * one resource a grant names, never its group or the subscription.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { sourceGrants } from '../../src/load/grants.js';
import { lookupsOf, sourceAssignments } from '../../scripts/lib/source-assignments.mjs';

const SUB = '00000000-0000-0000-0000-000000000001';
const RG = `/subscriptions/${SUB}/resourceGroups`;
const STJOBS = `${RG}/rg-jobs/providers/Microsoft.Storage/storageAccounts/stjobs`;
const ORDERS = `${RG}/rg-bus/providers/Microsoft.ServiceBus/namespaces/orders`;
const WORKSPACE = `${RG}/rg-mon/providers/Microsoft.Monitor/accounts/ws1`;
const SCALE_SET = `/subscriptions/${SUB}/resourceGroups/rg-a/providers/Microsoft.Compute/virtualMachineScaleSets/vmss1`;
const SITE = `${RG}/rg-web/providers/Microsoft.Web/sites/app`;
const ROLES = {
  storageQueueDataReader: '19e7f393-937e-4f77-808e-94535e297925',
  reader: 'acdd72a7-3385-48ef-bd42-f606fba81ae7',
  monitoringReader: '43d0d8ad-25c7-4714-9337-8ba259a9fe05',
  monitoringDataReader: 'b0d8363b-8ddd-447d-831f-62ca05bff136',
};

/** What `az resource list` (and `show`, for the workspace's endpoint) answered, per type. */
const LISTED = {
  'Microsoft.Storage/storageAccounts': [
    { id: STJOBS, name: 'stjobs' },
    { id: `${RG}/rg-x/providers/Microsoft.Storage/storageAccounts/stdup`, name: 'stdup' },
    { id: `${RG}/rg-y/providers/Microsoft.Storage/storageAccounts/stdup`, name: 'STDUP' },
  ],
  'Microsoft.ServiceBus/namespaces': [{ id: ORDERS, name: 'orders' }],
  'Microsoft.Monitor/accounts': [{ id: WORKSPACE, name: 'ws1', properties: { metrics: { prometheusQueryEndpoint: 'https://ws-1.eastus.prometheus.monitor.azure.com/' } } }],
};

/** A configuration of one Pool target and one Deployment target, each with the given sources. */
function configWith(poolSources: Record<string, unknown>[], deploymentSources: Record<string, unknown>[] = []) {
  const load = (sources: Record<string, unknown>[]) => ({ sources: sources.map((s, i) => ({ name: `s${i}`, ...s })) });
  return parseConfig({
    azure: { subscriptionId: SUB },
    kubernetes: { kubeconfig: '/nonexistent' },
    pools: [{ name: 'p1', scaleSet: { resourceGroup: 'rg-a', name: 'vmss1' } }],
    targets: [
      ...(poolSources.length ? [{ name: 'pool', minScale: 1, scaleTargetRef: { kind: 'Pool', name: 'p1' }, load: load(poolSources) }] : []),
      ...(deploymentSources.length ? [{ name: 'web', minScale: 1, scaleTargetRef: { kind: 'Deployment', namespace: 'shop', name: 'web' }, load: load(deploymentSources) }] : []),
    ],
  });
}

const assignmentsOf = (config: ReturnType<typeof configWith>) => sourceAssignments(sourceGrants(config), { principalId: 'p-1', resources: LISTED });
const made = (config: ReturnType<typeof configWith>) => assignmentsOf(config).assignments.map(({ role, scope, principal, sources }) => ({ role, scope, principal, sources }));

const queue = (queueName: string, accountName = 'stjobs') => ({ source: 'queue', accountName, queueName, targetPerReplica: 10 });
const QUEUE_ONLY = configWith([queue('work')], [{ source: 'http', url: 'https://m.example/q', targetPerReplica: 5 }, queue('more')]);

describe('each source kind: its grants become the assignment the hook makes', () => {
  it.each([
    [
      'a queue source given an accountName gets Storage Queue Data Reader on its one queue of the account found by name',
      configWith([queue('work')]),
      [{ role: ROLES.storageQueueDataReader, scope: `${STJOBS}/queueServices/default/queues/work`, principal: 'p-1', sources: ['targets[0].load.sources[0]'] }],
    ],
    [
      'a serviceBus queue source gets Reader on that queue of the namespace found by name',
      configWith([{ source: 'serviceBus', namespace: 'orders', resourceGroup: 'rg-bus', queueName: 'jobs', targetPerReplica: 5 }]),
      [{ role: ROLES.reader, scope: `${ORDERS}/queues/jobs`, principal: 'p-1', sources: ['targets[0].load.sources[0]'] }],
    ],
    [
      'a serviceBus subscription source, named by its full host name, gets Reader on that subscription only',
      configWith([{ source: 'serviceBus', namespace: 'orders.servicebus.windows.net', resourceGroup: 'rg-bus', topicName: 't', subscriptionName: 's', targetPerReplica: 5 }]),
      [{ role: ROLES.reader, scope: `${ORDERS}/topics/t/subscriptions/s`, principal: 'p-1', sources: ['targets[0].load.sources[0]'] }],
    ],
    [
      'an azureMonitor source naming a resource gets Monitoring Reader on that resource, without a look-up',
      configWith([], [{ source: 'azureMonitor', metric: 'Requests', resourceId: SITE, targetPerReplica: 100 }]),
      [{ role: ROLES.monitoringReader, scope: SITE, principal: 'p-1', sources: ['targets[0].load.sources[0]'] }],
    ],
    [
      "an azureMonitor source of a Pool target without a resourceId gets Monitoring Reader on the pool's scale set",
      configWith([{ source: 'azureMonitor', metric: 'Percentage CPU', metricType: 'perReplica', targetPerReplica: 60 }]),
      [{ role: ROLES.monitoringReader, scope: SCALE_SET, principal: 'p-1', sources: ['targets[0].load.sources[0]'] }],
    ],
    [
      'a prometheus source with auth: azure gets Monitoring Data Reader on the workspace whose query endpoint is its server',
      configWith([], [{ source: 'prometheus', serverAddress: 'https://ws-1.eastus.prometheus.monitor.azure.com/api', query: 'sum(up)', targetPerReplica: 1, auth: 'azure' }]),
      [{ role: ROLES.monitoringDataReader, scope: WORKSPACE, principal: 'p-1', sources: ['targets[0].load.sources[0]'] }],
    ],
    ['a prometheus source without auth gets nothing', configWith([], [{ source: 'prometheus', serverAddress: 'https://prom.example', query: 'up', targetPerReplica: 1 }]), []],
    ['a resource source gets no Azure role (its rules are in the Kubernetes Role)', configWith([], [{ source: 'resource', resource: 'cpu', targetPerReplica: 60 }]), []],
    [
      'http, push and a queue read with a connection string get nothing',
      configWith([{ source: 'http', url: 'https://m.example/q', targetPerReplica: 5 }, { source: 'push', targetPerReplica: 1 }, { source: 'queue', connection: 'UseDevelopmentStorage=true', queueName: 'q', targetPerReplica: 1 }]),
      [],
    ],
    [
      'two sources reading one queue share one assignment naming both',
      configWith([queue('work')], [queue('work')]),
      [{ role: ROLES.storageQueueDataReader, scope: `${STJOBS}/queueServices/default/queues/work`, principal: 'p-1', sources: ['targets[0].load.sources[0]', 'targets[1].load.sources[0]'] }],
    ],
  ])('%s', (_name, config, want) => {
    expect(made(config)).toEqual(want);
    expect(assignmentsOf(config).unplaced).toEqual([]);
  });
});

describe('a resource the hook cannot pin down is left to the operator, named, and never widened', () => {
  it.each([
    ['a storage account not in the subscription', queue('q', 'stgone'), /^targets\[0\]\.load\.sources\[0\]: no Microsoft\.Storage\/storageAccounts whose name is stgone was found in this subscription; assign Storage Queue Data Reader/],
    ['two storage accounts of that name (names differ only in case)', queue('q', 'stdup'), /^targets\[0\]\.load\.sources\[0\]: 2 resources are Microsoft\.Storage\/storageAccounts whose name is stdup \(.*rg-x.*rg-y.*\), so which one is meant is ambiguous/],
    [
      'a prometheus server that is no workspace of the subscription',
      { source: 'prometheus', serverAddress: 'https://other.westus.prometheus.monitor.azure.com', query: 'up', targetPerReplica: 1, auth: 'azure' },
      /no Microsoft\.Monitor\/accounts whose properties\.metrics\.prometheusQueryEndpoint is https:\/\/other\.westus\.prometheus\.monitor\.azure\.com was found in this subscription; assign Monitoring Data Reader/,
    ],
  ])('%s', (_name, source, message) => {
    const { assignments, unplaced } = assignmentsOf(configWith([], [source]));
    expect(assignments).toEqual([]);
    expect(unplaced).toEqual([expect.objectContaining({ at: 'targets[0].load.sources[0]', message: expect.stringMatching(message) })]);
  });
});

describe('a configuration without the new kinds', () => {
  it('yields exactly the assignments made before them: Storage Queue Data Reader on each queue source read with the identity', () => {
    expect(made(QUEUE_ONLY)).toEqual([
      { role: ROLES.storageQueueDataReader, scope: `${STJOBS}/queueServices/default/queues/work`, principal: 'p-1', sources: ['targets[0].load.sources[0]'] },
      { role: ROLES.storageQueueDataReader, scope: `${STJOBS}/queueServices/default/queues/more`, principal: 'p-1', sources: ['targets[1].load.sources[1]'] },
    ]);
  });

  it('asks the hook to list storage accounts only, by name (no full resources)', () => {
    expect(lookupsOf(sourceGrants(QUEUE_ONLY))).toEqual([{ resourceType: 'Microsoft.Storage/storageAccounts', needsProperties: false }]);
  });
});

describe('least privilege: nothing broader than the kinds declare', () => {
  const EVERY_KIND = configWith(
    [queue('work'), { source: 'azureMonitor', metric: 'Percentage CPU', metricType: 'perReplica', targetPerReplica: 60 }, { source: 'serviceBus', namespace: 'orders', resourceGroup: 'rg-bus', queueName: 'jobs', targetPerReplica: 5 }],
    [
      { source: 'prometheus', serverAddress: 'https://ws-1.eastus.prometheus.monitor.azure.com', query: 'up', targetPerReplica: 1, auth: 'azure' },
      { source: 'resource', resource: 'memory', targetPerReplica: 70 },
      { source: 'azureMonitor', metric: 'Requests', resourceId: SITE, targetPerReplica: 100 },
    ],
  );
  const grants = sourceGrants(EVERY_KIND).flatMap(({ at, grant }) => (grant.kind === 'azureRole' ? [{ at, grant }] : []));
  const { assignments, unplaced } = assignmentsOf(EVERY_KIND);

  it('makes one assignment per Azure grant, of the role that grant names, for the source that declared it', () => {
    expect(unplaced).toEqual([]);
    expect(assignments.map((a) => ({ role: a.role, sources: a.sources }))).toEqual(grants.map(({ at, grant }) => ({ role: grant.roleId, sources: [at] })));
  });

  it("scopes each to the grant's own resource: the one named, or the one found with the kind's suffix", () => {
    expect(assignments.map((a) => a.scope)).toEqual([`${STJOBS}/queueServices/default/queues/work`, SCALE_SET, `${ORDERS}/queues/jobs`, WORKSPACE, SITE]);
  });

  it('never scopes one to a subscription or a resource group, and uses only the four read roles', () => {
    for (const { scope } of assignments) expect(scope).toMatch(/^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/[^/]+\/[^/]+\/[^/]+/);
    expect(new Set(assignments.map((a) => a.role))).toEqual(new Set(Object.values(ROLES)));
  });

  it('lists each looked-up type once, fetching full resources only for the workspace endpoint', () => {
    expect(lookupsOf(sourceGrants(EVERY_KIND))).toEqual([
      { resourceType: 'Microsoft.Storage/storageAccounts', needsProperties: false },
      { resourceType: 'Microsoft.ServiceBus/namespaces', needsProperties: false },
      { resourceType: 'Microsoft.Monitor/accounts', needsProperties: true },
    ]);
  });
});
