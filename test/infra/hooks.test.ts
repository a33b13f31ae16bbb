/**
 * The azd provision hooks, run as azd runs them, against stand-ins for `az`, `azd` and `kubectl`
 * on PATH that answer from fixtures and record every call: which groups are Flexible, which
 * linked resources and namespaces get a role, that the Kubernetes Role is written, and which
 * roles the load sources get. The hooks run from a copy of scripts/ beside a dist/src that
 * esbuild compiles from src/ here, as `npm run build` would with tsc (the hook validates the
 * configuration and takes the sources' grants from the compiled kinds).
 */
import { execFile } from 'node:child_process';
import { chmodSync, cpSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { ROOT } from './support/source-graph.js';

const run = promisify(execFile);
const SUB = '/subscriptions/00000000-0000-0000-0000-000000000001';
const AKS = `${SUB}/resourceGroups/rg-aks/providers/Microsoft.ContainerService/managedClusters/aks1`;
const LINKED_ROLE = `${SUB}/providers/Microsoft.Authorization/roleDefinitions/11111111-1111-1111-1111-111111111111`;
const AKS_ROLE = `${SUB}/providers/Microsoft.Authorization/roleDefinitions/22222222-2222-2222-2222-222222222222`;
const SUB_ID = '00000000-0000-0000-0000-000000000001';
const STJOBS = `${SUB}/resourceGroups/rg-jobs/providers/Microsoft.Storage/storageAccounts/stjobs`;
const ORDERS = `${SUB}/resourceGroups/rg-bus/providers/Microsoft.ServiceBus/namespaces/orders`;
const WORKSPACE = `${SUB}/resourceGroups/rg-mon/providers/Microsoft.Monitor/accounts/ws1`;
const WORKSPACE_ENDPOINT = 'https://ws-1.eastus.prometheus.monitor.azure.com';
/** What `az resource list --resource-type` answers (no properties), and `az resource show` with them. */
const resources: Record<string, { id: string; name: string; properties?: unknown }[]> = {
  'Microsoft.Storage/storageAccounts': [{ id: STJOBS, name: 'stjobs' }],
  'Microsoft.ServiceBus/namespaces': [{ id: ORDERS, name: 'orders' }],
  'Microsoft.Monitor/accounts': [{ id: WORKSPACE, name: 'ws1', properties: { metrics: { prometheusQueryEndpoint: WORKSPACE_ENDPOINT } } }],
};
/** A scope on which az refuses the assignment (the operator lacks rights there). */
const REFUSED_SCOPE = `${ORDERS}/queues/locked`;

/** A copy of scripts/ with the compiled modules it imports from dist/src, and node_modules linked. */
async function hookRoot(options: { compiled: boolean }): Promise<string> {
  const root = tempDir();
  cpSync(path.join(ROOT, 'scripts'), path.join(root, 'scripts'), { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  if (options.compiled) {
    await esbuild.build({
      entryPoints: { 'dist/src/config/load': path.join(ROOT, 'src/config/load.ts'), 'dist/src/load/grants': path.join(ROOT, 'src/load/grants.ts') },
      outdir: root,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      logLevel: 'silent',
    });
  }
  return root;
}

let scripts: string;
beforeAll(async () => {
  scripts = await hookRoot({ compiled: true });
});

const models: Record<string, unknown> = {
  'rg-a/vmss1': {
    id: `${SUB}/resourceGroups/rg-a/providers/Microsoft.Compute/virtualMachineScaleSets/vmss1`,
    virtualMachineProfile: {
      networkProfile: {
        networkInterfaceConfigurations: [{ ipConfigurations: [{ subnet: { id: `${SUB}/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/v/subnets/s` } }] }],
      },
    },
  },
  'rg-b/vmss2': {
    id: `${SUB}/resourceGroups/rg-b/providers/Microsoft.Compute/virtualMachineScaleSets/vmss2`,
    orchestrationMode: 'Flexible',
    identity: { userAssignedIdentities: { [`${SUB}/resourceGroups/rg-id/providers/Microsoft.ManagedIdentity/userAssignedIdentities/app`]: {} } },
  },
};

/** A directory of stand-in commands that log their arguments, one JSON line per call. */
function fakeTools(options: { azureRbac: boolean }): { bin: string; calls: () => { tool: string; args: string[] }[] } {
  const bin = tempDir();
  const log = path.join(bin, 'calls.jsonl');
  const tool = (name: string, answer: string) => {
    const file = path.join(bin, name);
    writeFileSync(
      file,
      `#!/usr/bin/env node
const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ tool: ${JSON.stringify(name)}, args }) + '\\n');
${answer}
`,
    );
    chmodSync(file, 0o755);
  };
  tool(
    'az',
    `const models = ${JSON.stringify(models)};
const at = (flag) => args[args.indexOf(flag) + 1];
const model = models[at('--resource-group') + '/' + at('--name')];
const resources = ${JSON.stringify(resources)};
if (args[0] === 'vmss' && args[1] === 'show' && !model) {
  process.stderr.write('(ResourceNotFound) The Resource was not found.');
  process.exit(3);
} else if (args[0] === 'vmss' && args[1] === 'show') process.stdout.write(JSON.stringify(model));
else if (args[0] === 'aks' && args[1] === 'show') process.stdout.write(${JSON.stringify(String(options.azureRbac))});
else if (args[0] === 'resource' && args[1] === 'list') process.stdout.write(JSON.stringify((resources[at('--resource-type')] ?? []).map(({ properties, ...listed }) => listed)));
else if (args[0] === 'resource' && args[1] === 'show') {
  const ids = args.slice(args.indexOf('--ids') + 1, args.indexOf('--only-show-errors'));
  const full = Object.values(resources).flat().filter((r) => ids.includes(r.id));
  process.stdout.write(JSON.stringify(ids.length === 1 ? full[0] : full));
}
else if (args[0] === 'role' && args.includes(${JSON.stringify(`${SUB}/resourceGroups/rg-id/providers/Microsoft.ManagedIdentity/userAssignedIdentities/app`)})) {
  process.stderr.write('(RoleAssignmentExists) The role assignment already exists.');
  process.exit(1);
}
else if (args[0] === 'role' && args.includes(${JSON.stringify(REFUSED_SCOPE)})) {
  process.stderr.write('(AuthorizationFailed) The client does not have authorization to perform action Microsoft.Authorization/roleAssignments/write.');
  process.exit(1);
}
else process.stdout.write('{}');`,
  );
  tool('azd', '');
  tool('kubectl', '');
  return {
    bin,
    calls: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as { tool: string; args: string[] })
        : [],
  };
}

async function hook(name: string, bin: string, cwd: string, env: Record<string, string>, root = scripts) {
  return run(process.execPath, [path.join(root, 'scripts/hooks', `${name}.mjs`)], {
    cwd,
    env: { PATH: `${bin}${path.delimiter}${process.env.PATH}`, DROVER_SCALE_SETS: 'rg-a/vmss1, rg-b/vmss2', ...env },
  });
}

const assignments = (calls: { tool: string; args: string[] }[]) =>
  calls
    .filter((c) => c.tool === 'az' && c.args[0] === 'role')
    .map((c) => ({ role: c.args[c.args.indexOf('--role') + 1], scope: c.args[c.args.indexOf('--scope') + 1], principal: c.args[c.args.indexOf('--assignee-object-id') + 1] }));

describe('preprovision', () => {
  it('records the groups of Flexible scale sets, read from their models', async () => {
    const tools = fakeTools({ azureRbac: true });
    await hook('preprovision', tools.bin, tempDir(), {});
    expect(tools.calls().filter((c) => c.tool === 'azd')).toEqual([{ tool: 'azd', args: ['env', 'set', 'DROVER_FLEXIBLE_SCALE_SET_GROUPS', 'rg-b'] }]);
  });
});

describe('postprovision', () => {
  it('assigns the linked resource role on each resource the models reference (an existing assignment is fine), and nothing else without AKS', async () => {
    const tools = fakeTools({ azureRbac: true });
    await hook('postprovision', tools.bin, tempDir(), { DROVER_IDENTITY_PRINCIPAL_ID: 'p-1', DROVER_LINKED_ROLE_ID: LINKED_ROLE });
    expect(assignments(tools.calls())).toEqual([
      { role: LINKED_ROLE, scope: `${SUB}/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/v/subnets/s`, principal: 'p-1' },
      { role: LINKED_ROLE, scope: `${SUB}/resourceGroups/rg-id/providers/Microsoft.ManagedIdentity/userAssignedIdentities/app`, principal: 'p-1' },
    ]);
  });

  it('with Azure RBAC on the cluster: the AKS role per namespace, and a Role only for custom /scale resources', async () => {
    const tools = fakeTools({ azureRbac: true });
    const dir = tempDir();
    writeFileSync(
      path.join(dir, 'drover.config.yaml'),
      `kubernetes: { kubeconfig: ./aks.kubeconfig, auth: azure }
targets:
  - { name: web, minScale: 1, scaleTargetRef: { kind: Deployment, namespace: shop, name: web } }
  - { name: jobs, minScale: 1, scaleTargetRef: { group: keda.example.com, version: v1, plural: workers, namespace: batch, name: w } }
`,
    );
    await hook('postprovision', tools.bin, dir, {
      DROVER_SCALE_SETS: '',
      DROVER_IDENTITY_PRINCIPAL_ID: 'p-1',
      DROVER_AKS_CLUSTER_ID: AKS,
      DROVER_AKS_ROLE_ID: AKS_ROLE,
    });
    expect(assignments(tools.calls())).toEqual([{ role: AKS_ROLE, scope: `${AKS}/namespaces/shop`, principal: 'p-1' }]);
    const rbac = readFileSync(path.join(dir, 'dist/kubernetes-rbac.yaml'), 'utf8');
    expect(rbac).toContain('namespace: batch');
    expect(rbac).not.toContain('namespace: shop');
    expect(tools.calls().some((c) => c.tool === 'kubectl')).toBe(false);
  });

  it('gives a queue load source read with the identity (alone or among several) Storage Queue Data Reader on its one queue, and warns of an account it cannot find', async () => {
    const tools = fakeTools({ azureRbac: true });
    const dir = tempDir();
    writeFileSync(
      path.join(dir, 'drover.config.yaml'),
      `azure: { subscriptionId: ${SUB_ID} }
pools:
  - { name: p1, scaleSet: { resourceGroup: rg-a, name: vmss1 } }
  - { name: p2, scaleSet: { resourceGroup: rg-b, name: vmss2 } }
  - { name: p3, scaleSet: { resourceGroup: rg-b, name: vmss3 } }
  - { name: p4, scaleSet: { resourceGroup: rg-b, name: vmss4 } }
targets:
  - { name: jobs, minScale: 1, scaleTargetRef: { kind: Pool, name: p1 }, load: { source: queue, accountName: stjobs, queueName: work, targetPerReplica: 10 } }
  - { name: other, minScale: 1, scaleTargetRef: { kind: Pool, name: p2 }, load: { source: queue, accountName: stgone, queueName: q, targetPerReplica: 10 } }
  - { name: local, minScale: 1, scaleTargetRef: { kind: Pool, name: p3 }, load: { source: queue, connection: UseDevelopmentStorage=true, queueName: q, targetPerReplica: 10 } }
  - name: several
    minScale: 1
    scaleTargetRef: { kind: Pool, name: p4 }
    load: { sources: [{ name: web, source: http, url: http://metrics.internal/inflight, targetPerReplica: 5 }, { name: jobs, source: queue, accountName: stjobs, queueName: more, targetPerReplica: 10 }] }
`,
    );
    const { stdout } = await hook('postprovision', tools.bin, dir, { DROVER_SCALE_SETS: '', DROVER_IDENTITY_PRINCIPAL_ID: 'p-1' });
    expect(assignments(tools.calls())).toEqual([
      { role: '19e7f393-937e-4f77-808e-94535e297925', scope: `${SUB}/resourceGroups/rg-jobs/providers/Microsoft.Storage/storageAccounts/stjobs/queueServices/default/queues/work`, principal: 'p-1' },
      { role: '19e7f393-937e-4f77-808e-94535e297925', scope: `${SUB}/resourceGroups/rg-jobs/providers/Microsoft.Storage/storageAccounts/stjobs/queueServices/default/queues/more`, principal: 'p-1' },
    ]);
    expect(stdout).toMatch(/warning: targets\[1\]\.load: no Microsoft\.Storage\/storageAccounts whose name is stgone was found in this subscription; assign Storage Queue Data Reader/);
  });

  it("gives the serviceBus, azureMonitor and auth: azure prometheus sources their kinds' roles on their one resource, and names the source and scope of one az refuses", async () => {
    const tools = fakeTools({ azureRbac: true });
    const dir = tempDir();
    const site = `${SUB}/resourceGroups/rg-web/providers/Microsoft.Web/sites/app`;
    writeFileSync(
      path.join(dir, 'drover.config.yaml'),
      `azure: { subscriptionId: ${SUB_ID} }
kubernetes: { kubeconfig: ./aks.kubeconfig, auth: azure }
pools:
  - { name: p1, scaleSet: { resourceGroup: rg-a, name: vmss1 } }
targets:
  - { name: cpu, minScale: 1, scaleTargetRef: { kind: Pool, name: p1 }, load: { source: azureMonitor, metric: Percentage CPU, metricType: perReplica, targetPerReplica: 60 } }
  - name: web
    minScale: 1
    scaleTargetRef: { kind: Deployment, namespace: shop, name: web }
    load:
      sources:
        - { name: locked, source: serviceBus, namespace: orders, resourceGroup: rg-bus, queueName: locked, targetPerReplica: 5 }
        - { name: orders, source: serviceBus, namespace: orders.servicebus.windows.net, resourceGroup: rg-bus, topicName: t, subscriptionName: s, targetPerReplica: 5 }
        - { name: latency, source: prometheus, serverAddress: ${WORKSPACE_ENDPOINT}, query: 'sum(up)', auth: azure, targetPerReplica: 1 }
        - { name: requests, source: azureMonitor, metric: Requests, resourceId: ${site}, targetPerReplica: 100 }
        - { name: open, source: prometheus, serverAddress: https://prom.example, query: up, targetPerReplica: 1 }
`,
    );
    const { stdout } = await hook('postprovision', tools.bin, dir, { DROVER_SCALE_SETS: '', DROVER_IDENTITY_PRINCIPAL_ID: 'p-1' });
    expect(assignments(tools.calls())).toEqual([
      { role: '43d0d8ad-25c7-4714-9337-8ba259a9fe05', scope: `${SUB}/resourceGroups/rg-a/providers/Microsoft.Compute/virtualMachineScaleSets/vmss1`, principal: 'p-1' },
      { role: 'acdd72a7-3385-48ef-bd42-f606fba81ae7', scope: REFUSED_SCOPE, principal: 'p-1' },
      { role: 'acdd72a7-3385-48ef-bd42-f606fba81ae7', scope: `${ORDERS}/topics/t/subscriptions/s`, principal: 'p-1' },
      { role: 'b0d8363b-8ddd-447d-831f-62ca05bff136', scope: WORKSPACE, principal: 'p-1' },
      { role: '43d0d8ad-25c7-4714-9337-8ba259a9fe05', scope: site, principal: 'p-1' },
    ]);
    // One listing per looked-up type; the workspaces' endpoints need the full resources.
    expect(tools.calls().filter((c) => c.args[0] === 'resource').map((c) => c.args.slice(0, 4))).toEqual([
      ['resource', 'list', '--resource-type', 'Microsoft.ServiceBus/namespaces'],
      ['resource', 'list', '--resource-type', 'Microsoft.Monitor/accounts'],
      ['resource', 'show', '--ids', WORKSPACE],
    ]);
    expect(stdout).toContain(`warning: targets[1].load.sources[0]: Reader on ${REFUSED_SCOPE} could not be assigned (az role assignment failed: (AuthorizationFailed)`);
  });

  it("with Kubernetes RBAC: a resource source's namespace Role gets get and list on pods and pods.metrics.k8s.io, another namespace's does not", async () => {
    const tools = fakeTools({ azureRbac: false });
    const dir = tempDir();
    writeFileSync(
      path.join(dir, 'drover.config.yaml'),
      `kubernetes: { kubeconfig: ./aks.kubeconfig, auth: azure }
targets:
  - { name: web, minScale: 1, scaleTargetRef: { kind: Deployment, namespace: shop, name: web }, load: { source: resource, resource: cpu, targetPerReplica: 60 } }
  - { name: api, minScale: 1, scaleTargetRef: { kind: Deployment, namespace: edge, name: api }, load: { source: http, url: http://m.internal/q, targetPerReplica: 5 } }
`,
    );
    await hook('postprovision', tools.bin, dir, { DROVER_SCALE_SETS: '', DROVER_IDENTITY_PRINCIPAL_ID: 'p-1', DROVER_AKS_CLUSTER_ID: AKS, DROVER_AKS_ROLE_ID: AKS_ROLE });
    const roles = parseAllDocuments(readFileSync(path.join(dir, 'dist/kubernetes-rbac.yaml'), 'utf8'))
      .map((d) => d.toJS() as { kind: string; metadata: { namespace: string }; rules?: { apiGroups: string[]; resources: string[]; verbs: string[] }[] })
      .filter((d) => d.kind === 'Role');
    const rulesOf = (namespace: string) => roles.find((r) => r.metadata.namespace === namespace)!.rules;
    expect(rulesOf('shop')).toEqual(
      expect.arrayContaining([
        { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
        { apiGroups: ['metrics.k8s.io'], resources: ['pods'], verbs: ['get', 'list'] },
      ]),
    );
    expect(rulesOf('edge')).toEqual([
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] },
      { apiGroups: ['apps'], resources: ['deployments/scale'], verbs: ['patch'] },
    ]);
    expect(assignments(tools.calls())).toEqual([]);
  });

  it('refuses, naming the build to run, when the compiled code it reads the configuration with is missing', async () => {
    const tools = fakeTools({ azureRbac: true });
    const dir = tempDir();
    writeFileSync(path.join(dir, 'drover.config.yaml'), 'targets: []\n');
    await expect(hook('postprovision', tools.bin, dir, { DROVER_SCALE_SETS: '', DROVER_IDENTITY_PRINCIPAL_ID: 'p-1' }, await hookRoot({ compiled: false }))).rejects.toMatchObject({
      stderr: expect.stringMatching(/dist\/src\/config\/load\.js is missing: run tsc -p tsconfig\.build\.json first \(npm run build does\)/),
    });
  });

  it('fails on any other az error', async () => {
    const tools = fakeTools({ azureRbac: true });
    await expect(
      hook('postprovision', tools.bin, tempDir(), { DROVER_SCALE_SETS: 'rg-a/missing', DROVER_IDENTITY_PRINCIPAL_ID: 'p-1', DROVER_LINKED_ROLE_ID: LINKED_ROLE }),
    ).rejects.toMatchObject({ stderr: expect.stringMatching(/az vmss show failed: \(ResourceNotFound\)/) });
  });

  it('refuses to run before provisioning gave it the identity', async () => {
    const tools = fakeTools({ azureRbac: true });
    await expect(hook('postprovision', tools.bin, tempDir(), {})).rejects.toThrow(/DROVER_IDENTITY_PRINCIPAL_ID is not set/);
  });
});
