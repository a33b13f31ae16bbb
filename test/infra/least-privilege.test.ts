/**
 * Drover's custom roles hold exactly what its calls need: the ARM actions of the operations the
 * compute adapter makes (src/azure/operations.ts), the Kubernetes rules of the calls the scale
 * target adapter makes (src/kubernetes/operations.ts), and nothing that runs code on a VM, reads
 * a key or writes cluster-wide. The adapters are scanned, so a new SDK call fails here until it
 * has a row in the operations list, and a role action without a row fails too.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARM_OPERATIONS, roleKeyFor } from '../../src/azure/operations.js';
import { KUBERNETES_OPERATIONS } from '../../src/kubernetes/operations.js';
import { parseConfig } from '../../src/config/load.js';
import { kindOf, SOURCE_KINDS } from '../../src/load/registry.js';
import { sourceGrants } from '../../src/load/grants.js';
import { kubernetesRbac } from '../../scripts/kubernetes-rbac.mjs';
import { LINKED_TYPES, linkedScopes } from '../../scripts/linked-resources.mjs';
import { bicepFiles, readInfra } from './support/bicep.js';
import { ROOT } from './support/source-graph.js';

interface Entry {
  action: string;
  why: string;
}
interface CustomRole {
  name: string;
  description: string;
  assignedAt: string;
  actions?: Entry[];
  dataActions?: Entry[];
}

const custom = (JSON.parse(readInfra('roles.json')) as { custom: Record<string, CustomRole> }).custom;
const source = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const sorted = (values: Iterable<string>) => [...new Set(values)].sort();

/** Every `this.<client>.<group>.<method>(` or `this.<api>.<method>(` call in an adapter. */
function calls(file: string, pattern: RegExp): string[] {
  return sorted([...source(file).matchAll(pattern)].map((m) => m[1] ?? m[2]!));
}

const allActions = () =>
  Object.entries(custom).flatMap(([key, role]) => [...(role.actions ?? []), ...(role.dataActions ?? [])].map((e) => ({ key, ...e })));

describe('ARM: the custom roles against the calls of the compute adapter', () => {
  it('every ARM call the adapter makes has a row in the operations list, and every row is a call', () => {
    // `client.<group>.<method>`, and `list…Via` for a request the adapter sends through the pipeline itself.
    const made = calls('src/azure/compute-adapter.ts', /this\.(client\.(?!pipeline\.)\w+\.\w+)\(|\b(list\w+Via)\(/g);
    expect(made.length).toBeGreaterThan(0);
    expect(made).toEqual(sorted(ARM_OPERATIONS.map((op) => op.call)));
  });

  it.each(['scaleSetOperator', 'scaleSetGroup', 'flexibleScaleSetGroup', 'scaleSetLinkedResources'])(
    'the %s role holds exactly the actions its scope needs',
    (key) => {
      const needed = ARM_OPERATIONS.flatMap((op) => op.needs).filter((need) => roleKeyFor(need) === key);
      expect(needed.length).toBeGreaterThan(0);
      expect(sorted((custom[key]!.actions ?? []).map((e) => e.action))).toEqual(sorted(needed.map((n) => n.action)));
      expect(custom[key]!.dataActions ?? []).toEqual([]);
    },
  );

  it('no ARM role is left over: every custom role with actions is one the operations list fills', () => {
    const filled = new Set(ARM_OPERATIONS.flatMap((op) => op.needs).map(roleKeyFor));
    expect(Object.keys(custom).filter((key) => custom[key]!.actions?.length && !filled.has(key as never))).toEqual([]);
  });

  it('each linked resource type the hook assigns on is one some linked action names', () => {
    const linked = (custom.scaleSetLinkedResources!.actions ?? []).map((e) => e.action.toLowerCase());
    for (const type of Object.keys(LINKED_TYPES)) {
      expect(linked.some((action) => action.startsWith(`${type.toLowerCase()}/`)), type).toBe(true);
    }
  });
});

describe('Kubernetes: the Azure RBAC role and the namespaced Role against the calls of the scale target adapter', () => {
  it('every Kubernetes call the adapter makes has a row in the operations list, and every row is a call', () => {
    const made = calls('src/kubernetes/client-node-scale-targets.ts', /this\.((?:apps|custom)\.\w+)\(/g);
    expect(made.length).toBeGreaterThan(0);
    expect(made).toEqual(sorted(KUBERNETES_OPERATIONS.map((op) => op.call)));
  });

  it('the AKS workload scaler role holds exactly the data actions of those calls, and no control-plane action', () => {
    const needed = KUBERNETES_OPERATIONS.flatMap((op) => (op.dataAction ? [op.dataAction] : []));
    expect(sorted((custom.aksWorkloadScaler!.dataActions ?? []).map((e) => e.action))).toEqual(sorted(needed));
    expect(custom.aksWorkloadScaler!.actions ?? []).toEqual([]);
  });

  it('the AKS role is assigned per namespace, never on the cluster', () => {
    const hook = source('scripts/hooks/postprovision.mjs');
    const assignments = [...hook.matchAll(/assign\(env\.DROVER_AKS_ROLE_ID, ([^,]+),/g)].map((m) => m[1]!);
    expect(assignments).toEqual(['`${cluster}/namespaces/${namespace}`']);
  });

  const config = parseConfig({
    kubernetes: { kubeconfig: './kubeconfig' },
    targets: [
      { name: 'web', minScale: 1, scaleTargetRef: { kind: 'Deployment', name: 'web', namespace: 'shop' } },
      { name: 'db', minScale: 1, scaleTargetRef: { kind: 'StatefulSet', name: 'db', namespace: 'shop' } },
      { name: 'jobs', minScale: 1, scaleTargetRef: { group: 'keda.example.com', version: 'v1', plural: 'workers', name: 'w', namespace: 'batch' } },
      { name: 'api', minScale: 1, scaleTargetRef: { kind: 'Deployment', name: 'api' } },
    ],
  });
  const docs = kubernetesRbac(config, { principalId: '11111111-2222-3333-4444-555555555555' });

  it('the generated Role is namespaced, per namespace the targets use, and bound to the identity by object id', () => {
    expect(docs.map((d) => `${d.kind} ${d.metadata.namespace}/${d.metadata.name}`)).toEqual([
      'Role batch/drover-scaler',
      'RoleBinding batch/drover-scaler',
      'Role default/drover-scaler',
      'RoleBinding default/drover-scaler',
      'Role shop/drover-scaler',
      'RoleBinding shop/drover-scaler',
    ]);
    for (const binding of docs.filter((d) => d.kind === 'RoleBinding')) {
      expect(binding.subjects).toEqual([{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: '11111111-2222-3333-4444-555555555555' }]);
      expect(binding.roleRef).toEqual({ kind: 'Role', apiGroup: 'rbac.authorization.k8s.io', name: 'drover-scaler' });
    }
  });

  it('grants each namespace exactly the rules of the operations the adapter makes, for the resources its targets name', () => {
    // What the adapter calls for a workload (the apps operations on that resource) or a custom
    // resource (the {group} operations): a rule the code never uses is a failure, not only a missing one.
    const calls = (group: string, resource: string) =>
      KUBERNETES_OPERATIONS.filter((op) => (group === 'apps' ? op.apiGroup === 'apps' && op.resource.split('/')[0] === resource : op.apiGroup === '{group}')).map(
        (op) => `${group} ${op.resource.replace('{plural}', resource)} ${op.verb}`,
      );
    const granted = (namespace: string) =>
      docs
        .filter((d) => d.kind === 'Role' && d.metadata.namespace === namespace)
        .flatMap((d) => d.rules!.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${g} ${res} ${v}`))))).sort();
    expect(granted('shop')).toEqual([...calls('apps', 'deployments'), ...calls('apps', 'statefulsets')].sort());
    expect(granted('shop')).toEqual(['apps deployments get', 'apps deployments/scale patch', 'apps statefulsets get', 'apps statefulsets/scale patch']);
    expect(granted('batch')).toEqual(calls('keda.example.com', 'workers').sort());
    expect(granted('batch')).toEqual(['keda.example.com workers/scale get', 'keda.example.com workers/scale patch']);
    expect(granted('default')).toEqual(calls('apps', 'deployments').sort());
  });

  it('with Azure RBAC covering Deployments and StatefulSets, only the custom /scale resources get a Role', () => {
    const only = kubernetesRbac(config, { principalId: 'p', only: 'custom' });
    expect(only.map((d) => `${d.kind} ${d.metadata.namespace}`)).toEqual(['Role batch', 'RoleBinding batch']);
  });
});

describe('what no role may grant', () => {
  const FORBIDDEN: [RegExp, string][] = [
    [/\*/, 'a wildcard (Microsoft.Compute/* and the like)'],
    [/runCommand/i, 'run command: code on the VMs'],
    [/extensions/i, 'VM extensions: code on the VMs'],
    [/listKeys|regenerateKey|\/keys\//i, 'keys'],
    [/^Microsoft\.Authorization\//i, 'handing out rights'],
    [/\/secrets\//i, 'Kubernetes Secrets'],
    [/^Microsoft\.Resources\/deployments/i, 'ARM deployments'],
    [/\/virtualMachineScaleSets\/delete$/i, 'deleting a whole scale set'],
  ];

  it('no custom role action or data action is forbidden, and each says why it is there', () => {
    const actions = allActions();
    expect(actions.length).toBeGreaterThan(20);
    for (const { key, action, why } of actions) {
      for (const [pattern, what] of FORBIDDEN) expect(pattern.test(action), `${key}: ${action} grants ${what}`).toBe(false);
      expect(why.length, `${key}: ${action} has no why`).toBeGreaterThan(10);
    }
  });

  it('Kubernetes data actions stay with Deployments and StatefulSets (no cluster-wide resource, no Secret)', () => {
    for (const { action } of custom.aksWorkloadScaler!.dataActions ?? []) {
      expect(action).toMatch(/^Microsoft\.ContainerService\/managedClusters\/apps\/(deployments|statefulsets)\/(read|write)$/);
    }
  });

  it('the generated Kubernetes objects are a Role and a RoleBinding only, with no write verb beyond patch on a scale subresource', () => {
    const docs = kubernetesRbac(
      parseConfig({ kubernetes: { kubeconfig: './k' }, targets: [{ name: 'web', minScale: 1, scaleTargetRef: { kind: 'Deployment', name: 'web' } }] }),
      { principalId: 'p' },
    );
    expect(sorted(docs.map((d) => d.kind))).toEqual(['Role', 'RoleBinding']);
    for (const rule of docs.flatMap((d) => d.rules ?? [])) {
      const writes = rule.verbs.filter((v) => v !== 'get');
      if (writes.length) {
        expect(writes).toEqual(['patch']);
        expect(rule.resources.every((r) => r.endsWith('/scale'))).toBe(true);
      }
      expect(rule.resources.some((r) => r === '*' || r.startsWith('secrets'))).toBe(false);
    }
  });

  it('no built-in compute or Kubernetes role is assigned anywhere in infra/', () => {
    const bicep = [...bicepFiles().values()].join('\n') + readInfra('roles.json');
    const builtIns: [string, string][] = [
      ['9980e02c-c2be-4d73-94e8-173b1dc7cf3c', 'Virtual Machine Contributor'],
      ['a7ffa36f-339b-4b5c-8bdf-e2c188b2c0eb', 'Azure Kubernetes Service RBAC Writer'],
      ['3498e952-d568-435e-9b2c-8d77e338d7f7', 'Azure Kubernetes Service RBAC Admin'],
      ['b24988ac-6180-42a0-ab88-20f7382dd24c', 'Contributor'],
    ];
    for (const [id, name] of builtIns) {
      expect(bicep.includes(id) || bicep.includes(`'${name}'`) || bicep.includes(`"${name}"`), name).toBe(false);
    }
  });

  it('the role definitions take their actions from roles.json, and the scale set role is assigned on each scale set', () => {
    const definitions = readInfra('app/role-definitions.bicep');
    expect(definitions).toContain('actions: map(customRoles[definition.key].?actions ?? [], entry => entry.action)');
    expect(definitions).toContain('dataActions: map(customRoles[definition.key].?dataActions ?? [], entry => entry.action)');
    expect(definitions).toMatch(/notActions: \[\]/);
    const access = readInfra('app/scale-set-access.bicep');
    expect(access).toMatch(/resource scaleSets 'Microsoft\.Compute\/virtualMachineScaleSets@[^']+' existing = \[\s*for name in scaleSetNames:/);
    expect(access).toMatch(/resource scaleSetOperator [^=]+= \[\s*for \(name, i\) in scaleSetNames: \{\s*name: [^\n]+\s*scope: scaleSets\[i\]/);
    expect(access).toMatch(/resource flexibleScaleSetGroup [^=]+= if \(flexible\)/);
  });
});

describe('linked resources of a scale set model', () => {
  const sub = '/subscriptions/00000000-0000-0000-0000-000000000001';
  const net = `${sub}/resourceGroups/rg-net/providers/Microsoft.Network`;
  const model = {
    id: `${sub}/resourceGroups/rg-workers/providers/Microsoft.Compute/virtualMachineScaleSets/workers`,
    identity: { userAssignedIdentities: { [`${sub}/resourceGroups/rg-id/providers/Microsoft.ManagedIdentity/userAssignedIdentities/kubelet`]: {} } },
    virtualMachineProfile: {
      storageProfile: {
        imageReference: { id: `${sub}/resourceGroups/rg-img/providers/Microsoft.Compute/galleries/g/images/ubuntu/versions/1.0.0` },
        osDisk: { managedDisk: { diskEncryptionSet: { id: `${sub}/resourceGroups/rg-kv/providers/Microsoft.Compute/diskEncryptionSets/des` } } },
      },
      networkProfile: {
        healthProbe: { id: `${net}/loadBalancers/lb/probes/http` },
        networkInterfaceConfigurations: [
          {
            networkSecurityGroup: { id: `${net}/networkSecurityGroups/nsg` },
            ipConfigurations: [
              {
                subnet: { id: `${net}/virtualNetworks/vnet/subnets/workers` },
                loadBalancerBackendAddressPools: [{ id: `${net}/loadBalancers/lb/backendAddressPools/pool` }],
                applicationGatewayBackendAddressPools: [{ id: `${net}/applicationGateways/agw/backendAddressPools/web` }],
                applicationSecurityGroups: [{ id: `${net}/applicationSecurityGroups/asg` }],
              },
            ],
          },
        ],
      },
      extensionProfile: { extensions: [{ id: `${sub}/resourceGroups/rg-workers/providers/Microsoft.Compute/virtualMachineScaleSets/workers/extensions/x` }] },
      capacityReservation: { capacityReservationGroup: { id: `${sub}/resourceGroups/rg-crg/providers/Microsoft.Compute/capacityReservationGroups/crg` } },
    },
  };

  it('finds each referenced resource once, at the subnet or the top-level resource, and reports types without a linked action', () => {
    const { scopes, unknown } = linkedScopes(model);
    expect(scopes.map((s) => s.scope).sort()).toEqual(
      [
        `${net}/applicationGateways/agw`,
        `${net}/applicationSecurityGroups/asg`,
        `${net}/loadBalancers/lb`,
        `${net}/networkSecurityGroups/nsg`,
        `${net}/virtualNetworks/vnet/subnets/workers`,
        `${sub}/resourceGroups/rg-id/providers/Microsoft.ManagedIdentity/userAssignedIdentities/kubelet`,
        `${sub}/resourceGroups/rg-img/providers/Microsoft.Compute/galleries/g`,
        `${sub}/resourceGroups/rg-kv/providers/Microsoft.Compute/diskEncryptionSets/des`,
      ].sort(),
    );
    expect(unknown).toEqual([
      {
        id: `${sub}/resourceGroups/rg-crg/providers/Microsoft.Compute/capacityReservationGroups/crg`,
        from: 'virtualMachineProfile.capacityReservation.capacityReservationGroup',
      },
    ]);
  });
});

describe('load source kinds: each grant a kind asks for is a role of roles.json, scoped to the resource the source names', () => {
  const roles = JSON.parse(readInfra('roles.json')) as Record<string, { id?: string }>;
  const roleIds = new Set(Object.values(roles).flatMap((r) => (r.id ? [r.id] : [])));
  const target = { kind: 'kubernetes' as const, ref: { kind: 'Deployment' as const, namespace: 'default', name: 'web' } };
  const grantsOf = (load: Record<string, unknown>) => {
    const config = parseConfig({ kubernetes: { kubeconfig: '/nonexistent' }, targets: [{ name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web' }, minScale: 1, load }] });
    const source = config.targets[0]!.load!.sources[0]!;
    return kindOf(source.source).grants?.(source, target) ?? [];
  };
  it.each([
    ['a prometheus source with auth: azure reads one workspace with Monitoring Data Reader', { source: 'prometheus', serverAddress: 'https://ws-1.eastus.prometheus.monitor.azure.com', query: 'up', targetPerReplica: 1, auth: 'azure' }, [{ role: 'monitoringDataReader', equals: 'https://ws-1.eastus.prometheus.monitor.azure.com', suffix: undefined }]],
    ['a prometheus source without auth needs nothing', { source: 'prometheus', serverAddress: 'https://prom.example', query: 'up', targetPerReplica: 1 }, []],
    ['a queue source read with the identity reads its one queue', { source: 'queue', accountName: 'stjobs', queueName: 'work', targetPerReplica: 1 }, [{ role: 'storageQueueDataReader', equals: 'stjobs', suffix: '/queueServices/default/queues/work' }]],
    ['an http source needs nothing', { source: 'http', url: 'https://m.example/q', targetPerReplica: 1 }, []],
    ['a serviceBus source reads its one queue with Reader', { source: 'serviceBus', namespace: 'orders', resourceGroup: 'rg', queueName: 'jobs', targetPerReplica: 5 }, [{ role: 'reader', equals: 'orders', suffix: '/queues/jobs' }]],
    [
      'a serviceBus source on a subscription reads that subscription only',
      { source: 'serviceBus', namespace: 'orders.servicebus.windows.net', resourceGroup: 'rg', topicName: 't', subscriptionName: 's', targetPerReplica: 5 },
      [{ role: 'reader', equals: 'orders', suffix: '/topics/t/subscriptions/s' }],
    ],
    [
      'an azureMonitor source reads the metrics of the one resource it names with Monitoring Reader',
      { source: 'azureMonitor', metric: 'Requests', resourceId: '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Web/sites/app', targetPerReplica: 1 },
      [expect.objectContaining({ kind: 'azureRole', roleId: '43d0d8ad-25c7-4714-9337-8ba259a9fe05', scope: { resourceId: '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Web/sites/app' } })],
    ],
    [
      "a resource source lists pods and their metrics.k8s.io metrics, and reads the target's /scale, in its namespace",
      { source: 'resource', resource: 'cpu', targetPerReplica: 60 },
      [
        expect.objectContaining({ kind: 'kubernetesRole', apiGroup: '', resources: ['pods'], verbs: ['get', 'list'], namespace: 'default' }),
        expect.objectContaining({ kind: 'kubernetesRole', apiGroup: 'metrics.k8s.io', resources: ['pods'], verbs: ['get', 'list'], namespace: 'default' }),
        expect.objectContaining({ kind: 'kubernetesRole', apiGroup: 'apps', resources: ['deployments/scale'], verbs: ['get'], namespace: 'default' }),
      ],
    ],
  ])('%s', (_name, load, want) => {
    const got = grantsOf(load);
    for (const grant of got) if (grant.kind === 'azureRole') expect(roleIds).toContain(grant.roleId);
    expect(
      got.map((g) => (g.kind === 'azureRole' && 'lookup' in g.scope ? { role: Object.keys(roles).find((k) => roles[k]!.id === g.roleId), equals: g.scope.lookup.equals, suffix: g.scope.suffix } : g)),
    ).toEqual(want);
  });

  it("the generated Role of a resource source's namespace grants get and list on pods and pods.metrics.k8s.io (from the kind's grants)", () => {
    const config = parseConfig({ kubernetes: { kubeconfig: '/nonexistent' }, targets: [{ name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web', namespace: 'shop' }, minScale: 1, load: { source: 'resource', resource: 'cpu', targetPerReplica: 60 } }] });
    const [role] = kubernetesRbac(config, { principalId: 'p', grants: sourceGrants(config) });
    expect(role!.rules).toEqual(
      expect.arrayContaining([
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
        { apiGroups: ['metrics.k8s.io'], resources: ['pods'], verbs: ['get', 'list'] },
        { apiGroups: ['apps'], resources: ['deployments/scale'], verbs: ['get'] },
      ]),
    );
    for (const rule of role!.rules!) expect(rule.verbs.filter((v) => !['get', 'list', 'patch'].includes(v))).toEqual([]);
  });

  it.each([
    ['a namespace with a resource source gets get and list on pods and pods.metrics.k8s.io; one without gets no list', { only: 'all' as const }, { shop: true, edge: false }],
    ['on a cluster with Azure RBAC, the Role of a resource source\'s namespace still carries them (the AKS role names no pods)', { only: 'custom' as const }, { shop: true }],
  ])('%s', (_name, { only }, want) => {
    const config = parseConfig({
      kubernetes: { kubeconfig: '/nonexistent' },
      targets: [
        { name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web', namespace: 'shop' }, minScale: 1, load: { source: 'resource', resource: 'cpu', targetPerReplica: 60 } },
        { name: 'api', scaleTargetRef: { kind: 'Deployment', name: 'api', namespace: 'edge' }, minScale: 1, load: { source: 'http', url: 'http://m.internal/q', targetPerReplica: 5 } },
      ],
    });
    const roles = kubernetesRbac(config, { principalId: 'p', only, grants: sourceGrants(config) }).filter((d) => d.kind === 'Role');
    const podRules = (namespace: string) => roles.find((r) => r.metadata.namespace === namespace)!.rules!.filter((r) => r.resources.includes('pods'));
    expect(roles.map((r) => r.metadata.namespace).sort()).toEqual(Object.keys(want).sort());
    for (const [namespace, hasResource] of Object.entries(want)) {
      expect(podRules(namespace)).toEqual(
        hasResource
          ? [
              { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
              { apiGroups: ['metrics.k8s.io'], resources: ['pods'], verbs: ['get', 'list'] },
            ]
          : [],
      );
    }
  });

  it('a configuration without a resource source gets exactly the Role it got before the sources had grants', () => {
    const config = parseConfig({
      kubernetes: { kubeconfig: '/nonexistent' },
      targets: [
        { name: 'web', scaleTargetRef: { kind: 'Deployment', name: 'web', namespace: 'shop' }, minScale: 1, load: { source: 'prometheus', serverAddress: 'https://prom.example', query: 'up', targetPerReplica: 1 } },
        { name: 'jobs', scaleTargetRef: { group: 'keda.example.com', version: 'v1', plural: 'workers', name: 'w', namespace: 'batch' }, minScale: 1 },
      ],
    });
    const docs = kubernetesRbac(config, { principalId: 'p', grants: sourceGrants(config) });
    expect(docs).toEqual(kubernetesRbac(config, { principalId: 'p' }));
    expect(docs.flatMap((d) => d.rules ?? []).flatMap((r) => r.verbs)).not.toContain('list');
  });

  it('every registered kind is in this table or asks for no grant', () => {
    expect(SOURCE_KINDS.map((k) => k.name).sort()).toEqual(['azureMonitor', 'http', 'prometheus', 'push', 'queue', 'resource', 'serviceBus']);
  });
});
