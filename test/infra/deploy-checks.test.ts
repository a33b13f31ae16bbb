import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../src/config/load.js';
import { ROOT } from './support/source-graph.js';
import { checkDeployConfig } from '../../scripts/deploy-checks.mjs';
import { SOURCE_KINDS } from '../../src/load/registry.js';

const SUBSCRIPTION = '00000000-0000-0000-0000-000000000001';
const OTHER_SUBSCRIPTION = '00000000-0000-0000-0000-000000000002';

/** What azd puts in the build's environment after `azd provision`. */
const AZD = {
  AZURE_ENV_NAME: 'prod',
  AZURE_SUBSCRIPTION_ID: SUBSCRIPTION,
  AZURE_STORAGE_ACCOUNT_NAME: 'stabc123',
  DROVER_SCALE_SETS: 'rg-workers/vmss, RG-Batch/VMSS',
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
  /** Contents of files next to the configuration (they also exist). */
  contents?: Record<string, string>;
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
    name: 'a pool in a resource group without the role is a warning naming the field',
    config: { azure, pools: [pool('rg-workers'), pool('rg-gpu')] },
    env: AZD,
    wantWarnings: [/^pools\[1\]\.scaleSet: "rg-gpu\/vmss" is not in DROVER_SCALE_SETS/],
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

const KEY = 'bm90LWEtcmVhbC1rZXk=';
const KUBE_TOKEN = 'kube-token-value';
const CLUSTERS = `clusters:
- name: aks
  cluster:
    server: https://aks.example:443
    certificate-authority-data: Q0E=
contexts:
- name: aks
  context: { cluster: aks, user: drover }
current-context: aks
`;
const kubeconfig = (user: string, clusters = CLUSTERS) => `apiVersion: v1\nkind: Config\n${clusters}users:\n- name: drover\n  user:\n${user}`;
const azureTarget = (load: Record<string, unknown>, activator?: Record<string, unknown>) => ({
  name: 'web',
  minScale: 1,
  scaleTargetRef: { kind: 'Deployment', name: 'web' },
  load,
  ...(activator ? { activator } : {}),
});

const secretRows: Row[] = [
  {
    name: 'an AccountKey in a queue load source is refused with its path',
    config: {
      kubernetes: aks,
      targets: [azureTarget({ source: 'queue', queueName: 'jobs', connection: `DefaultEndpointsProtocol=https;AccountName=st;AccountKey=${KEY};`, targetPerReplica: 5 })],
    },
    contents: { 'aks.kubeconfig': kubeconfig('    exec: { apiVersion: client.authentication.k8s.io/v1beta1, command: kubelogin }\n') },
    wantErrors: [/^targets\[0\]\.load\.connection: holds a key-based connection string/],
    wantFiles: ['aks.kubeconfig'],
  },
  {
    name: 'a SharedAccessSignature in the storage section is refused with its path, besides the storage connection itself',
    config: { storage: { connection: `QueueEndpoint=https://st.queue.core.windows.net/;SharedAccessSignature=sv=2024&sig=${KEY}` } },
    wantErrors: [/^storage\.connection: holds a key-based connection string/, /^storage\.connection: .*managed identity/],
  },
  {
    name: 'a queue load source with any connection string is refused: in Azure it reads with the identity',
    config: { kubernetes: aks, targets: [azureTarget({ source: 'queue', queueName: 'jobs', connection: 'UseDevelopmentStorage=true', targetPerReplica: 5 })] },
    contents: { 'aks.kubeconfig': kubeconfig('    exec: { command: kubelogin }\n') },
    wantErrors: [/^targets\[0\]\.load\.connection: in Azure a queue load source reads with the managed identity; give accountName/],
    wantFiles: ['aks.kubeconfig'],
  },
  {
    name: 'serviceBus, azureMonitor and resource sources read with the identity pass',
    config: {
      azure,
      kubernetes: aks,
      targets: [
        azureTarget({ sources: [
          { name: 'bus', source: 'serviceBus', namespace: 'orders', resourceGroup: 'rg', queueName: 'jobs', targetPerReplica: 5 },
          { name: 'rps', source: 'azureMonitor', metric: 'Requests', resourceId: '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Web/sites/app', targetPerReplica: 100 },
          { name: 'cpu', source: 'resource', resource: 'cpu', targetPerReplica: 60 },
        ] }),
      ],
    },
    contents: { 'aks.kubeconfig': kubeconfig('    exec: { command: kubelogin }\n') },
    wantFiles: ['aks.kubeconfig'],
  },
  {
    name: 'a serviceBus endpoint carrying a key in its query is refused with its path',
    config: { azure, kubernetes: aks, targets: [azureTarget({ source: 'serviceBus', namespace: 'orders', resourceGroup: 'rg', queueName: 'jobs', endpoint: `https://arm.example/?code=${KEY}`, targetPerReplica: 5 })] },
    contents: { 'aks.kubeconfig': kubeconfig('    exec: { command: kubelogin }\n') },
    wantErrors: [/^targets\[0\]\.load\.endpoint: its query string carries a credential \(code=\)/],
    wantFiles: ['aks.kubeconfig'],
  },
  {
    name: 'a queue load source by account name passes',
    config: { kubernetes: aks, targets: [azureTarget({ source: 'queue', queueName: 'jobs', accountName: 'st', targetPerReplica: 5 })] },
    contents: { 'aks.kubeconfig': kubeconfig('    exec: { command: kubelogin }\n') },
    wantFiles: ['aks.kubeconfig'],
  },
  {
    name: 'signed load and probe URLs are refused with their paths, without their values',
    config: {
      kubernetes: aks,
      targets: [
        azureTarget(
          { source: 'http', url: `https://metrics.example/load?sig=${KEY}`, targetPerReplica: 5 },
          { probeUrl: `https://web.example/api/probe?code=${KEY}&x=1` },
        ),
      ],
    },
    contents: { 'aks.kubeconfig': kubeconfig('    exec: { command: kubelogin }\n') },
    wantErrors: [/^targets\[0\]\.activator\.probeUrl: its query string carries a credential \(code=\)/, /^targets\[0\]\.load\.url: its query string carries a credential \(sig=\)/],
    wantFiles: ['aks.kubeconfig'],
  },
  {
    name: 'azure.devToken is refused with its path, besides the dev credential it goes with',
    config: { azure: { subscriptionId: '00000000-0000-0000-0000-000000000000', credential: 'dev', devToken: KEY, resourceManagerEndpoint: 'https://127.0.0.1:8443' } },
    wantErrors: [/^azure\.devToken: a credential would ship with the package/, /^azure\.credential: "dev"/],
  },
  {
    name: 'a load URL with user:pass@ and api_key=, a probe URL with apikey= and X-Amz-Signature= are each refused with their paths',
    config: {
      kubernetes: aks,
      targets: [
        azureTarget({ source: 'http', url: `https://ops:${KEY}@metrics.example/load`, targetPerReplica: 5 }, { probeUrl: `https://web.example/probe?apikey=${KEY}` }),
        {
          ...azureTarget({ source: 'http', url: `https://metrics.example/load?api_key=${KEY}`, targetPerReplica: 5 }, { probeUrl: `https://bucket.example/p?X-Amz-Signature=${KEY}&X-Amz-Credential=${KEY}` }),
          name: 'api',
          scaleTargetRef: { kind: 'Deployment', name: 'api' },
        },
      ],
    },
    contents: { 'aks.kubeconfig': kubeconfig('    exec: { command: kubelogin }\n') },
    wantErrors: [
      /^targets\[0\]\.activator\.probeUrl: its query string carries a credential \(apikey=\)/,
      /^targets\[0\]\.load\.url: the URL carries a user and password \(…@metrics\.example\)/,
      /^targets\[1\]\.activator\.probeUrl: its query string carries a credential \(X-Amz-Signature=, X-Amz-Credential=\)/,
      /^targets\[1\]\.load\.url: its query string carries a credential \(api_key=\)/,
    ],
    wantFiles: ['aks.kubeconfig'],
  },
  {
    name: 'a kubeconfig user with a token and key data under auth: azure is refused with the paths in the file',
    config: { kubernetes: aks },
    contents: { 'aks.kubeconfig': kubeconfig(`    token: ${KUBE_TOKEN}\n    client-key-data: ${KEY}\n    client-certificate-data: ${KEY}\n`) },
    wantErrors: [
      /^kubernetes\.kubeconfig \(aks\.kubeconfig\): users\[0\]\.user\.token: a credential/,
      /^kubernetes\.kubeconfig \(aks\.kubeconfig\): users\[0\]\.user\.client-key-data: a credential/,
      /^kubernetes\.kubeconfig \(aks\.kubeconfig\): users\[0\]\.user\.client-certificate-data: a credential/,
    ],
    wantFiles: ['aks.kubeconfig'],
  },
  {
    name: 'a password, a cached auth-provider token and an exec secret are refused too',
    config: { kubernetes: aks },
    contents: {
      'aks.kubeconfig': kubeconfig(
        `    username: admin\n    password: hunter2\n    auth-provider:\n      name: azure\n      config: { access-token: abc, refresh-token: def, apiserver-id: x }\n    exec:\n      command: kubelogin\n      env: [{ name: AAD_SERVICE_PRINCIPAL_CLIENT_SECRET, value: s }]\n`,
      ),
    },
    wantErrors: [
      /users\[0\]\.user\.password: a credential/,
      /users\[0\]\.user\.username: a credential/,
      /users\[0\]\.user\.auth-provider\.config\.access-token: a cached token/,
      /users\[0\]\.user\.auth-provider\.config\.refresh-token: a cached token/,
      /users\[0\]\.user\.exec\.env\[0\] \(AAD_SERVICE_PRINCIPAL_CLIENT_SECRET\): a secret/,
    ],
    wantFiles: ['aks.kubeconfig'],
  },
  {
    name: 'insecure-skip-tls-verify under auth: azure is refused',
    config: { kubernetes: aks },
    contents: { 'aks.kubeconfig': kubeconfig('    exec: { command: kubelogin }\n', CLUSTERS.replace('certificate-authority-data: Q0E=', 'insecure-skip-tls-verify: true')) },
    wantErrors: [/^kubernetes\.kubeconfig \(aks\.kubeconfig\): clusters\[0\]\.cluster\.insecure-skip-tls-verify: /],
    wantFiles: ['aks.kubeconfig'],
  },
  {
    name: 'without auth: azure the kubeconfig user is the credential Drover uses: a warning, as before',
    config: { kubernetes: { kubeconfig: 'aks.kubeconfig' } },
    contents: { 'aks.kubeconfig': kubeconfig(`    token: ${KUBE_TOKEN}\n`) },
    wantWarnings: [/^kubernetes\.auth: without "azure"/],
    wantFiles: ['aks.kubeconfig'],
  },
];

describe('checkDeployConfig', () => {
  it.each([...rows, ...secretRows])('$name', ({ config, env = {}, existing = [], contents = {}, wantErrors = [], wantWarnings = [], wantFiles = [] }) => {
    const report = checkDeployConfig(parseConfig(config), {
      env,
      kinds: SOURCE_KINDS,
      exists: (file) => existing.includes(file) || file in contents,
      read: (file) => contents[file] ?? '',
    });
    for (const message of [...report.errors, ...report.warnings]) {
      expect(message).not.toContain(KEY);
      expect(message).not.toContain(KUBE_TOKEN);
    }
    expect(report.errors).toHaveLength(wantErrors.length);
    wantErrors.forEach((want, i) => expect(report.errors[i]).toMatch(want));
    expect(report.warnings).toHaveLength(wantWarnings.length);
    wantWarnings.forEach((want, i) => expect(report.warnings[i]).toMatch(want));
    expect(report.files).toEqual(wantFiles);
  });
});

describe('checkDeployConfig over several load sources', () => {
  it('scans every source of a target, naming each by its path', () => {
    const sources = [
      { name: 'jobs', source: 'queue', queueName: 'jobs', connection: 'UseDevelopmentStorage=true', targetPerReplica: 5 },
      { name: 'web', source: 'http', url: `https://metrics.example/load?sig=${KEY}`, targetPerReplica: 5 },
      { name: 'clean', source: 'http', url: 'https://metrics.example/load', targetPerReplica: 5 },
    ];
    const config = { targets: [{ name: 'web', load: { sources, combine: 'max' } }] } as unknown as Parameters<typeof checkDeployConfig>[0];
    const report = checkDeployConfig(config, { env: {}, exists: () => false, kinds: SOURCE_KINDS });
    expect(report.errors.map((e) => e.split(':')[0]).sort()).toEqual(['targets[0].load.sources[0].connection', 'targets[0].load.sources[1].url']);
    for (const message of report.errors) expect(message).not.toContain(KEY);
  });

  it('scans them as Drover loads them, from a configuration a user writes', () => {
    const config = parseConfig({
      kubernetes: { kubeconfig: '/nonexistent' },
      targets: [
        {
          name: 'worker',
          scaleTargetRef: { kind: 'Deployment', name: 'worker' },
          minScale: 1,
          load: {
            sources: [
              { name: 'jobs', source: 'queue', queueName: 'jobs', accountName: 'stjobs', targetPerReplica: 5 },
              { name: 'web', source: 'http', url: `https://metrics.example/load?code=${KEY}`, targetPerReplica: 5 },
            ],
            combine: { formula: 'jobs + web', targetPerReplica: 5 },
          },
        },
      ],
    });
    const report = checkDeployConfig(config, { env: {}, exists: () => false, kinds: SOURCE_KINDS });
    expect(report.errors.filter((e) => e.startsWith('targets')).map((e) => e.split(':')[0])).toEqual(['targets[0].load.sources[1].url']);
    for (const message of report.errors) expect(message).not.toContain(KEY);
  });
});

describe('drover.config.example.yaml', () => {
  const example = path.join(ROOT, 'drover.config.example.yaml');
  const kubeloginUser = `apiVersion: v1
clusters: [{ name: aks, cluster: { server: 'https://aks.example:443', certificate-authority-data: Q0E= } }]
users: [{ name: drover, user: { exec: { apiVersion: client.authentication.k8s.io/v1beta1, command: kubelogin, args: [get-token, --login, azurecli] } } }]
contexts: [{ name: aks, context: { cluster: aks, user: drover } }]
current-context: aks
`;

  it('is a valid configuration that the deploy checks let through with its kubeconfig', async () => {
    const config = await loadConfig(example);
    const report = checkDeployConfig(config, {
      kinds: SOURCE_KINDS,
      env: { ...AZD, AZURE_SUBSCRIPTION_ID: '00000000-0000-0000-0000-000000000000', DROVER_SCALE_SETS: 'rg-workers/vmss-workers' },
      configDir: ROOT,
      exists: (file) => file === 'aks.kubeconfig',
      read: () => kubeloginUser,
    });
    expect(report).toEqual({ errors: [], warnings: [], files: ['aks.kubeconfig'] });
  });

  it('a local drover.config.yaml and kubeconfig are ignored by git', () => {
    const ignored = readFileSync(path.join(ROOT, '.gitignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['/drover.config.yaml', '/*.kubeconfig']));
  });
});
