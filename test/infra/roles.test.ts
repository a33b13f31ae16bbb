/**
 * Least privilege, checked against the code: every Azure call the function app or the Functions
 * host makes is allowed by a role assignment in infra/, at the narrowest scope it needs, and no
 * assignment goes further. The needs come from what the code imports and registers, scanned:
 * a new SDK import or trigger kind fails here until someone decides what it needs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { bicepFiles, moduleDeclaration, readInfra, roleAssignments } from './support/bicep.js';
import { functionAppSources, names, triggerKinds, type SourceGraph } from './support/source-graph.js';

type Scope = 'storage account' | 'Application Insights' | 'scale sets' | 'scale set resource groups' | 'AKS namespaces';
interface RoleNeed {
  role: string;
  scope: Scope;
}

/** Built-in roles Drover may hold, by key of infra/roles.json (GUIDs from Azure's built-in role list). */
const BUILT_IN_ROLES: Record<string, { id: string; name: string }> = {
  storageBlobDataOwner: { id: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b', name: 'Storage Blob Data Owner' },
  storageQueueDataContributor: { id: '974c5e8b-45b9-4653-ba55-5f855dd0fb88', name: 'Storage Queue Data Contributor' },
  storageTableDataContributor: { id: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3', name: 'Storage Table Data Contributor' },
  // Assigned by the post-provision hook on each queue a queue load source reads by accountName (hooks.test.ts).
  storageQueueDataReader: { id: '19e7f393-937e-4f77-808e-94535e297925', name: 'Storage Queue Data Reader' },
  // What a prometheus source with auth: azure asks for (its kind's grants, least-privilege.test.ts), on its one workspace.
  monitoringDataReader: { id: 'b0d8363b-8ddd-447d-831f-62ca05bff136', name: 'Monitoring Data Reader' },
  // What an azureMonitor source asks for, on the one resource whose metrics it reads.
  monitoringReader: { id: '43d0d8ad-25c7-4714-9337-8ba259a9fe05', name: 'Monitoring Reader' },
  // What a serviceBus source asks for, on its one queue or subscription (the ARM read of the entity).
  reader: { id: 'acdd72a7-3385-48ef-bd42-f606fba81ae7', name: 'Reader' },
  monitoringMetricsPublisher: { id: '3913510d-42f4-4e42-8a64-420c390055eb', name: 'Monitoring Metrics Publisher' },
};

/**
 * What each Azure-facing package the function app imports needs, and where. Every such package
 * (@azure/*, @azure-rest/*, @kubernetes/*, @opentelemetry/*) must have a row, even an empty
 * one, so that a new SDK cannot arrive without someone deciding its rights.
 */
const PACKAGE_NEEDS: Record<string, RoleNeed[]> = {
  '@azure/data-tables': [{ role: 'storageTableDataContributor', scope: 'storage account' }],
  '@azure/storage-queue': [{ role: 'storageQueueDataContributor', scope: 'storage account' }],
  '@azure/arm-compute': [
    { role: 'scaleSetOperator', scope: 'scale sets' },
    { role: 'scaleSetGroup', scope: 'scale set resource groups' },
    { role: 'flexibleScaleSetGroup', scope: 'scale set resource groups' },
  ],
  // Assigned per namespace by the post-provision hook (scope unknown to a deployment): see least-privilege.test.ts.
  '@kubernetes/client-node': [],
  '@azure/monitor-opentelemetry-exporter': [{ role: 'monitoringMetricsPublisher', scope: 'Application Insights' }],
  '@azure/functions': [],
  // The HTTP pipeline under the storage SDKs (batch requests, a Retry-After cap): it reaches no service of its own.
  '@azure/core-rest-pipeline': [],
  '@azure/identity': [],
  '@opentelemetry/api': [],
  '@opentelemetry/sdk-metrics': [],
};

/** What the Functions host needs for each kind of trigger the app registers. */
const TRIGGER_NEEDS: Record<string, RoleNeed[]> = {
  timer: [{ role: 'storageBlobDataOwner', scope: 'storage account' }],
  storageQueue: [{ role: 'storageQueueDataContributor', scope: 'storage account' }],
  http: [],
};

/** What the host needs whatever the functions: its deployment package and keys in blobs, telemetry with Entra ID. */
const HOST_NEEDS: RoleNeed[] = [
  { role: 'storageBlobDataOwner', scope: 'storage account' },
  { role: 'monitoringMetricsPublisher', scope: 'Application Insights' },
];

const SCOPE_OF_RESOURCE: Record<string, Scope> = {
  'Microsoft.Storage/storageAccounts': 'storage account',
  'Microsoft.Insights/components': 'Application Insights',
  'Microsoft.Compute/virtualMachineScaleSets': 'scale sets',
};

let graph: SourceGraph;
let functionFiles: string[];
const main = readInfra('main.bicep');

beforeAll(async () => {
  graph = await functionAppSources();
  functionFiles = graph.files.filter((f) => f.startsWith('functions/'));
});

describe('roles', () => {
  const { custom: _custom, ...roles } = JSON.parse(readInfra('roles.json')) as Record<string, { id: string; name: string }>;
  const assignments = roleAssignments(bicepFiles());
  const key = (n: RoleNeed) => `${n.role} on ${n.scope}`;

  const needed = async (): Promise<string[]> => {
    const azureFacing = [...graph.packages.keys()].filter((p) => /^@(azure|azure-rest|kubernetes|opentelemetry)\//.test(p));
    const undecided = azureFacing.filter((p) => !(p in PACKAGE_NEEDS));
    expect(undecided.map((p) => `${p} (imported by ${graph.packages.get(p)!.join(', ')})`), 'packages without a row in PACKAGE_NEEDS').toEqual([]);
    const triggers = names(triggerKinds(functionFiles));
    expect(triggers.filter((t) => !(t in TRIGGER_NEEDS)), 'triggers without a row in TRIGGER_NEEDS').toEqual([]);
    return [
      ...new Set([...HOST_NEEDS, ...triggers.flatMap((t) => TRIGGER_NEEDS[t]!), ...azureFacing.flatMap((p) => PACKAGE_NEEDS[p]!)].map(key)),
    ].sort();
  };

  const assigned = () =>
    [
      ...new Set(
        assignments.flatMap((a) => {
          const scope: Scope | undefined = a.scope === 'resourceGroup' && a.file === 'app/scale-set-access.bicep' ? 'scale set resource groups' : SCOPE_OF_RESOURCE[a.scope];
          if (!scope) throw new Error(`${a.file}: ${a.symbol} is scoped to ${a.scope}`);
          return a.roles.map((role) => key({ role, scope }));
        }),
      ),
    ].sort();

  it('infra/roles.json holds the built-in roles by their real ids', () => {
    expect(Object.fromEntries(Object.entries(roles).map(([k, r]) => [k, { id: r.id, name: r.name }]))).toEqual(BUILT_IN_ROLES);
  });

  it('every role a call of the code or of the host needs is assigned, at the scope it needs, and no other', async () => {
    expect(assigned()).toEqual(await needed());
  });

  it('every assignment goes to the user-assigned identity, as a service principal', () => {
    expect(assignments.length).toBeGreaterThan(0);
    for (const a of assignments) expect(`${a.file}: ${a.principal}`).toBe(`${a.file}: principalId`);
    for (const file of new Set(assignments.map((a) => a.file))) {
      expect(moduleDeclaration(main, file)).toMatch(/\bprincipalId: identity\.outputs\.principalId\b/);
      expect(readInfra(file)).toContain("principalType: 'ServicePrincipal'");
    }
  });

  it('nothing is assigned at subscription scope', () => {
    expect(assignments.filter((a) => a.file === 'main.bicep' || a.scope === 'subscription')).toEqual([]);
  });

  it('the scale set roles go to the named scale sets and their resource groups and nowhere else', () => {
    const declaration = moduleDeclaration(main, 'app/scale-set-access.bicep');
    expect(declaration).toMatch(/= \[\s*for group in scaleSetGroups:/);
    expect(declaration).toContain('scope: resourceGroup(scaleSetSubscription, group)');
    expect(declaration).toContain('scaleSetNames: map(filter(scaleSetEntries, entry => entry.resourceGroup == group), entry => entry.name)');
    expect(declaration).toContain('flexible: contains(flexibleGroups, group)');
    expect(main).toContain('var scaleSetGroups = union(map(scaleSetEntries, entry => entry.resourceGroup), [])');
  });

  it('the AKS role is defined only when a cluster is named', () => {
    expect(moduleDeclaration(main, 'app/role-definitions.bicep')).toMatch(/= if \(!empty\(scaleSetEntries\)\)/);
    expect(main).toMatch(/module aksRoles 'app\/role-definitions\.bicep' = if \(!empty\(aksClusterId\)\)/);
  });
});
