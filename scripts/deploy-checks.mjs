/**
 * What a validated configuration must satisfy before it is packaged for Azure, and where it
 * disagrees with what `azd provision` grants. Pure: the configuration, the environment azd runs
 * the build with (its .env: AZURE_ENV_NAME, AZURE_SUBSCRIPTION_ID, the DROVER_* values mapped in
 * infra/main.parameters.json, the Bicep outputs) and a file-existence probe in; messages out.
 *
 * Errors describe a package that cannot work in Azure. Warnings describe rights the identity
 * will lack unless they are granted outside azd; they are compared only under azd.
 */
import path from 'node:path';

const DEFAULT_PREFIX = 'drover';

/**
 * @param {import('../src/config/schema.js').DroverConfig} config
 * @param {{ env: Record<string, string | undefined>, exists: (relativePath: string) => boolean, configDir?: string }} deps
 *   `configDir`: where the configuration file is; the loader resolves the files it names
 *   against it, so they are taken relative to it again here.
 */
export function checkDeployConfig(config, { env, exists, configDir }) {
  const errors = [];
  const warnings = [];
  const files = [];
  const underAzd = Boolean(env.AZURE_ENV_NAME);

  /** A file the app opens at run time must travel with the package. */
  const shipFile = (field, named) => {
    const file = configDir && path.isAbsolute(named) ? path.relative(configDir, named) : named;
    const normal = path.posix.normalize(file.replaceAll('\\', '/'));
    if (path.isAbsolute(file) || file.startsWith('~') || normal.startsWith('../')) {
      errors.push(`${field}: "${file}" is outside the directory of the configuration, so it would not be deployed; give a path relative to it`);
    } else if (!exists(normal)) {
      errors.push(`${field}: "${file}" does not exist`);
    } else {
      files.push(normal);
    }
  };

  if (config.storage?.connection) {
    errors.push(
      'storage.connection: in Azure Drover reaches storage with its managed identity; remove the storage section so that it uses the function app\'s AzureWebJobsStorage__* settings',
    );
  }
  const provisionedAccount = env.AZURE_STORAGE_ACCOUNT_NAME;
  if (underAzd && config.storage?.accountName && provisionedAccount && config.storage.accountName !== provisionedAccount) {
    warnings.push(
      `storage.accountName: "${config.storage.accountName}" is not the provisioned account "${provisionedAccount}", on which alone the identity has data roles`,
    );
  }
  const prefix = config.storage?.prefix ?? DEFAULT_PREFIX;
  const boundPrefix = env.DROVER_STORAGE_PREFIX || DEFAULT_PREFIX;
  if (underAzd && prefix !== boundPrefix) {
    errors.push(
      `storage.prefix: "${prefix}", but the queue triggers bind to ${boundPrefix}-reconcile and ${boundPrefix}-probe (azd env DROVER_STORAGE_PREFIX); set both to the same value`,
    );
  }

  if (config.azure?.credential === 'dev') {
    errors.push('azure.credential: "dev" sends a fixed token to a local simulator; use "default" (the identity named by AZURE_CLIENT_ID)');
  }
  if (config.azure?.caFile) shipFile('azure.caFile', config.azure.caFile);

  const k8s = config.kubernetes;
  if (k8s?.inCluster) {
    errors.push('kubernetes.inCluster: a function app runs in no cluster; deploy a kubeconfig with the cluster\'s address and use auth: azure');
  } else if (k8s) {
    if (k8s.kubeconfig) shipFile('kubernetes.kubeconfig', k8s.kubeconfig);
    else errors.push('kubernetes.kubeconfig: the default ~/.kube/config does not exist in Azure; name a kubeconfig next to the configuration');
    if (k8s.auth !== 'azure') {
      warnings.push('kubernetes.auth: without "azure" the kubeconfig\'s own user and its credentials are deployed with the package; auth: azure uses the identity instead');
    } else if (underAzd && !env.DROVER_AKS_CLUSTER_ID) {
      warnings.push('kubernetes.auth: "azure", but DROVER_AKS_CLUSTER_ID is not set, so the identity gets no role on the cluster');
    }
  }

  if (underAzd) {
    const granted = new Set(
      (env.DROVER_SCALE_SET_RESOURCE_GROUPS ?? '')
        .split(',')
        .map((g) => g.trim().toLowerCase())
        .filter(Boolean),
    );
    for (const { field, resourceGroup } of scaleSetResourceGroups(config)) {
      if (!granted.has(resourceGroup.toLowerCase())) {
        warnings.push(`${field}: "${resourceGroup}" is not in DROVER_SCALE_SET_RESOURCE_GROUPS, so the identity cannot read or scale its scale sets`);
      }
    }
    const grantedSubscription = env.DROVER_SCALE_SET_SUBSCRIPTION_ID || env.AZURE_SUBSCRIPTION_ID;
    const subscription = config.azure?.subscriptionId;
    if (subscription && grantedSubscription && subscription.toLowerCase() !== grantedSubscription.toLowerCase()) {
      warnings.push(
        `azure.subscriptionId: "${subscription}", but the scale set roles are granted in subscription "${grantedSubscription}" (DROVER_SCALE_SET_SUBSCRIPTION_ID)`,
      );
    }
  }

  return { errors, warnings, files };
}

/** Every resource group the configuration names a scale set in, with the field that names it. */
function scaleSetResourceGroups(config) {
  const groups = [];
  (config.pools ?? []).forEach((pool, i) => {
    groups.push({ field: `pools[${i}].scaleSet.resourceGroup`, resourceGroup: pool.scaleSet.resourceGroup });
  });
  (config.targets ?? []).forEach((target, i) => {
    const ref = target.scaleTargetRef;
    if (ref.kind === 'VirtualMachineScaleSet') {
      groups.push({ field: `targets[${i}].scaleTargetRef.resourceGroup`, resourceGroup: ref.resourceGroup });
    }
  });
  return groups;
}
