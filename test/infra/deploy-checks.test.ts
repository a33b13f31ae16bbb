import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { checkDeployConfig } from '../../scripts/deploy-checks.mjs';

const SUBSCRIPTION = '00000000-0000-0000-0000-000000000001';
const OTHER_SUBSCRIPTION = '00000000-0000-0000-0000-000000000002';

/** What azd puts in the build's environment after `azd provision`. */
const AZD = {
  AZURE_ENV_NAME: 'prod',
  AZURE_SUBSCRIPTION_ID: SUBSCRIPTION,
  AZURE_STORAGE_ACCOUNT_NAME: 'stabc123',
  DROVER_SCALE_SET_RESOURCE_GROUPS: 'rg-workers, RG-Batch',
  DROVER_AKS_CLUSTER_ID: `/subscriptions/${SUBSCRIPTION}/resourceGroups/rg-aks/providers/Microsoft.ContainerService/managedClusters/aks1`,
};

const pool = (resourceGroup: string) => ({ name: `p-${resourceGroup.toLowerCase()}`, scaleSet: { resourceGroup, name: 'vmss' } });
const azure = { subscriptionId: SUBSCRIPTION };
const aks = { kubeconfig: './aks.kubeconfig', auth: 'azure' };

interface Row {
  name: string;
  config: Record<string, unknown>;
  env?: Record<string, string>;
  existing?: string[];
  wantErrors?: RegExp[];
  wantWarnings?: RegExp[];
  wantFiles?: string[];
}

const rows: Row[] = [
  {
    name: 'a configuration that uses the app settings, granted scale sets and AKS with Entra ID passes, shipping its kubeconfig',
    config: { azure, kubernetes: aks, pools: [pool('rg-workers'), pool('rg-batch')] },
    env: AZD,
    existing: ['aks.kubeconfig'],
    wantFiles: ['aks.kubeconfig'],
  },
  {
    name: 'a storage connection string is refused: in Azure the identity connects',
    config: { storage: { connection: 'UseDevelopmentStorage=true' } },
    wantErrors: [/^storage\.connection: .*managed identity/],
  },
  {
    name: 'an account other than the provisioned one is a warning: the identity has no role there',
    config: { storage: { accountName: 'stother' } },
    env: AZD,
    wantWarnings: [/^storage\.accountName: "stother" is not the provisioned account "stabc123"/],
  },
  {
    name: 'a prefix other than the one the triggers bind to is refused under azd',
    config: { storage: { accountName: 'stabc123', prefix: 'acme' } },
    env: AZD,
    wantErrors: [/^storage\.prefix: "acme", but the queue triggers bind to drover-reconcile and drover-probe/],
  },
  {
    name: 'the same non-default prefix on both sides passes',
    config: { storage: { accountName: 'stabc123', prefix: 'acme' } },
    env: { ...AZD, DROVER_STORAGE_PREFIX: 'acme' },
  },
  {
    name: 'outside azd nothing is compared with the environment',
    config: { storage: { prefix: 'acme' }, azure, pools: [pool('rg-elsewhere')], kubernetes: aks },
    existing: ['aks.kubeconfig'],
    wantFiles: ['aks.kubeconfig'],
  },
  {
    name: 'the dev credential is refused',
    config: { azure: { ...azure, credential: 'dev', resourceManagerEndpoint: 'https://127.0.0.1:8443' } },
    wantErrors: [/^azure\.credential: "dev"/],
  },
  {
    name: 'a CA file next to the configuration is shipped, normalised',
    config: { azure: { ...azure, caFile: './certs/../proxy-ca.pem' } },
    existing: ['proxy-ca.pem'],
    wantFiles: ['proxy-ca.pem'],
  },
  {
    name: 'a CA file outside the configuration\'s directory is refused: it would not be deployed',
    config: { azure: { ...azure, caFile: '../ca.pem' } },
    wantErrors: [/^azure\.caFile: "\.\.\/ca\.pem" is outside the directory of the configuration/],
  },
  {
    name: 'an absolute kubeconfig path is refused',
    config: { kubernetes: { kubeconfig: '/etc/kube/config', auth: 'azure' } },
    wantErrors: [/^kubernetes\.kubeconfig: "\/etc\/kube\/config" is outside/],
  },
  {
    name: 'a home-relative kubeconfig path is refused',
    config: { kubernetes: { kubeconfig: '~/.kube/config', auth: 'azure' } },
    wantErrors: [/^kubernetes\.kubeconfig: "~\/\.kube\/config" is outside/],
  },
  {
    name: 'a kubeconfig that does not exist is refused',
    config: { kubernetes: aks },
    wantErrors: [/^kubernetes\.kubeconfig: "\.\/aks\.kubeconfig" does not exist/],
  },
  {
    name: 'no kubeconfig at all is refused: the default ~/.kube/config does not exist in Azure',
    config: { kubernetes: { auth: 'azure' } },
    wantErrors: [/^kubernetes\.kubeconfig: the default ~\/\.kube\/config does not exist in Azure/],
  },
  {
    name: 'in-cluster access is refused: a function app runs in no cluster',
    config: { kubernetes: { inCluster: true } },
    wantErrors: [/^kubernetes\.inCluster: /],
  },
  {
    name: 'a kubeconfig user instead of Entra ID is a warning: its credentials would ship',
    config: { kubernetes: { kubeconfig: 'kubeconfig.yaml' } },
    existing: ['kubeconfig.yaml'],
    wantWarnings: [/^kubernetes\.auth: without "azure"/],
    wantFiles: ['kubeconfig.yaml'],
  },
  {
    name: 'Entra ID for AKS without a cluster for the role is a warning under azd',
    config: { kubernetes: aks },
    env: { ...AZD, DROVER_AKS_CLUSTER_ID: '' },
    existing: ['aks.kubeconfig'],
    wantWarnings: [/^kubernetes\.auth: "azure", but DROVER_AKS_CLUSTER_ID is not set/],
    wantFiles: ['aks.kubeconfig'],
  },
  {
    name: 'a pool or scale set target in a resource group without the role is a warning naming the field',
    config: {
      azure,
      pools: [pool('rg-workers'), pool('rg-gpu')],
      targets: [{ name: 'vmss', minScale: 1, scaleTargetRef: { kind: 'VirtualMachineScaleSet', resourceGroup: 'rg-web', name: 'web' } }],
    },
    env: AZD,
    wantWarnings: [
      /^pools\[1\]\.scaleSet\.resourceGroup: "rg-gpu" is not in DROVER_SCALE_SET_RESOURCE_GROUPS/,
      /^targets\[0\]\.scaleTargetRef\.resourceGroup: "rg-web" is not in DROVER_SCALE_SET_RESOURCE_GROUPS/,
    ],
  },
  {
    name: 'scale sets in another subscription than the one the roles are granted in is a warning',
    config: { azure: { subscriptionId: OTHER_SUBSCRIPTION }, pools: [pool('rg-workers')] },
    env: AZD,
    wantWarnings: [/^azure\.subscriptionId: "00000000-0000-0000-0000-000000000002", but the scale set roles are granted in subscription "00000000-0000-0000-0000-000000000001"/],
  },
  {
    name: 'the scale set subscription may be named apart from the deployment\'s',
    config: { azure: { subscriptionId: OTHER_SUBSCRIPTION }, pools: [pool('rg-workers')] },
    env: { ...AZD, DROVER_SCALE_SET_SUBSCRIPTION_ID: OTHER_SUBSCRIPTION },
  },
];

describe('checkDeployConfig', () => {
  it.each(rows)('$name', ({ config, env = {}, existing = [], wantErrors = [], wantWarnings = [], wantFiles = [] }) => {
    const report = checkDeployConfig(parseConfig(config), { env, exists: (file) => existing.includes(file) });
    expect(report.errors).toHaveLength(wantErrors.length);
    wantErrors.forEach((want, i) => expect(report.errors[i]).toMatch(want));
    expect(report.warnings).toHaveLength(wantWarnings.length);
    wantWarnings.forEach((want, i) => expect(report.warnings[i]).toMatch(want));
    expect(report.files).toEqual(wantFiles);
  });
});
