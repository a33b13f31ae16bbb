/**
 * What a validated configuration must satisfy before it is packaged for Azure, and where it
 * disagrees with what `azd provision` grants. Pure: the configuration, the environment azd runs
 * the build with (its .env: AZURE_ENV_NAME, AZURE_SUBSCRIPTION_ID, the DROVER_* values mapped in
 * infra/main.parameters.json, the Bicep outputs) and a file-existence probe in; messages out.
 *
 * Errors describe a package that cannot work in Azure or would carry a secret (a key-based
 * connection string, kubeconfig credentials, a signed URL). Warnings describe rights the
 * identity will lack unless they are granted outside azd; they are compared only under azd.
 */
import path from 'node:path';
import { URL } from 'node:url';
import { parse as parseYaml } from 'yaml';

const DEFAULT_PREFIX = 'drover';

/**
 * @param {import('../src/config/schema.js').DroverConfig} config
 * @param {{ env: Record<string, string | undefined>, exists: (relativePath: string) => boolean, read?: (relativePath: string) => string, configDir?: string }} deps
 *   `configDir`: where the configuration file is; the loader resolves the files it names
 *   against it, so they are taken relative to it again here. `read`: the text of a shipped
 *   file (the kubeconfig is checked for credentials).
 */
export function checkDeployConfig(config, { env, exists, read, configDir, kinds = [] }) {
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
      return normal;
    }
    return undefined;
  };

  errors.push(...secretsInConfig(config, kinds));

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
    const shipped = k8s.kubeconfig ? shipFile('kubernetes.kubeconfig', k8s.kubeconfig) : undefined;
    if (shipped && k8s.auth === 'azure' && read) errors.push(...secretsInKubeconfig(`kubernetes.kubeconfig (${shipped})`, read(shipped)));
    if (!k8s.kubeconfig) errors.push('kubernetes.kubeconfig: the default ~/.kube/config does not exist in Azure; name a kubeconfig next to the configuration');
    if (k8s.auth !== 'azure') {
      warnings.push('kubernetes.auth: without "azure" the kubeconfig\'s own user and its credentials are deployed with the package; auth: azure uses the identity instead');
    } else if (underAzd && !env.DROVER_AKS_CLUSTER_ID) {
      warnings.push('kubernetes.auth: "azure", but DROVER_AKS_CLUSTER_ID is not set, so the identity gets no role on the cluster');
    }
  }

  if (underAzd) {
    const granted = new Set(
      (env.DROVER_SCALE_SETS ?? '')
        .split(',')
        .map((entry) => entry.trim().toLowerCase())
        .filter(Boolean),
    );
    for (const { field, resourceGroup, name } of configuredScaleSets(config)) {
      if (!granted.has(`${resourceGroup}/${name}`.toLowerCase())) {
        warnings.push(`${field}: "${resourceGroup}/${name}" is not in DROVER_SCALE_SETS, so the identity cannot read or scale it`);
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

/** Every scale set the configuration names, with the field that names it. */
function configuredScaleSets(config) {
  const scaleSets = [];
  (config.pools ?? []).forEach((pool, i) => {
    scaleSets.push({ field: `pools[${i}].scaleSet`, resourceGroup: pool.scaleSet.resourceGroup, name: pool.scaleSet.name });
  });
  return scaleSets;
}

/** Key-based credentials in a connection string: the account key, a SAS, a Service Bus key. */
const KEYED_CONNECTION = /(^|;)\s*(AccountKey|SharedAccessSignature|SharedAccessKey)\s*=/i;
/**
 * Query parameters that carry a credential: a SAS or S3/GCS signature, a bearer token, a
 * function key, an API key (`sig`, `X-Amz-Signature`, `access_token`, `code`, `api_key`,
 * `apikey`, `subscription-key`, …).
 */
const SIGNED_QUERY = /^(sig|code|auth|x-(amz|goog)-[a-z-]+)$|(^|[-_.])(signature|token|key|secret|password|passwd|pwd|credential)$|apikey|api-key|api_key/i;
/** A configuration key whose value is itself a credential (`azure.devToken`, a future `password`). */
const SECRET_KEY = /(token|secret|password|passwd|apikey|api[-_]key)$/i;
/** `scheme://…` anywhere in a string. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/**
 * Secrets in the configuration itself, by path, found by walking every value (so a field added
 * later, such as another load source's URL, is covered without being listed): a key holding a
 * credential, a key-based connection string, a URL with a user or password or a credential in
 * its query string; and what each source kind refuses itself (its `secrets`: a queue load source
 * given a connection string at all, since in Azure it reads with the identity, by accountName).
 * A one-source `load`, which config load made a list of one, is walked as it was written.
 */
function secretsInConfig(config, kinds) {
  const errors = [];
  const walk = (value, at, key) => {
    if (typeof value === 'string') {
      if (key !== undefined && SECRET_KEY.test(key) && value !== '') errors.push(`${at}: a credential would ship with the package; remove it (it is for a local simulator only)`);
      else if (KEYED_CONNECTION.test(value)) errors.push(`${at}: holds a key-based connection string, which would ship with the package; use the identity (an accountName) instead`);
      else errors.push(...signedUrls(at, value));
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => walk(v, `${at}[${i}]`, undefined));
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, at ? `${at}.${k}` : k, k);
    }
  };
  walk({ ...config, ...(config.targets ? { targets: config.targets.map((t) => ({ ...t, load: asWritten(t.load) })) } : {}) }, '', undefined);
  (config.targets ?? []).forEach((target, i) => {
    for (const { load, at } of loadSources(asWritten(target.load), `targets[${i}].load`)) {
      const kind = kinds.find((k) => k.name === load.source);
      for (const issue of kind?.secrets?.(load) ?? []) errors.push(`${[at, ...issue.path].join('.')}: ${issue.message}`);
    }
  });
  return errors;
}

/** A `load` as the user wrote it: a list of one source named `load` is the one source. */
function asWritten(load) {
  if (!load || !Array.isArray(load.sources) || load.sources.length !== 1 || load.sources[0].name !== 'load') return load;
  const source = { ...load.sources[0] };
  delete source.name;
  return source;
}

/** A target's load sources with their paths: `load` itself, or each of `load.sources`. */
function loadSources(load, at) {
  if (!load) return [];
  if (Array.isArray(load.sources)) return load.sources.map((source, j) => ({ load: source, at: `${at}.sources[${j}]` }));
  return [{ load, at }];
}

/** The credentials the URLs in one string carry: a user or password, or query parameters named like a key. */
function signedUrls(field, text) {
  const errors = [];
  for (const found of text.match(URL_IN_TEXT) ?? []) {
    let url;
    try {
      url = new URL(found);
    } catch {
      continue;
    }
    if (url.username || url.password) {
      errors.push(`${field}: the URL carries a ${url.password ? 'user and password' : 'user name'} (…@${url.host}), which would ship with the package and show in errors; use an endpoint that needs none`);
    }
    const signed = [...new Set([...url.searchParams.keys()].filter((p) => SIGNED_QUERY.test(p)))];
    if (signed.length) {
      errors.push(`${field}: its query string carries a credential (${signed.map((p) => `${p}=`).join(', ')}), which would ship with the package and show in errors; use an endpoint that needs none`);
    }
  }
  return errors;
}

/** Fields of a kubeconfig user that hold a credential; an `exec` plugin (kubelogin) holds none. */
const USER_SECRETS = ['token', 'tokenFile', 'client-key-data', 'client-certificate-data', 'client-key', 'client-certificate', 'password', 'username'];
/** What the legacy auth-provider caches in the file. */
const CACHED_TOKENS = ['access-token', 'refresh-token', 'id-token', 'client-secret'];
/** An exec plugin given a secret by argument or environment. */
const SECRET_NAME = /secret|token|password|key/i;

/**
 * With `auth: azure` Drover replaces the kubeconfig's user with its identity, so any credential
 * in the file is only a secret shipped for nothing, and skipping TLS verification would hand the
 * identity's token to whoever answers. Paths are given into the file; values never are.
 */
export function secretsInKubeconfig(field, text) {
  let doc;
  try {
    doc = parseYaml(text);
  } catch (error) {
    const at = error?.linePos?.[0];
    return [`${field}: not valid YAML${at ? ` at line ${at.line}, column ${at.col}` : ''}`];
  }
  const errors = [];
  (doc?.users ?? []).forEach((entry, i) => {
    const user = entry?.user ?? {};
    const at = `${field}: users[${i}].user`;
    for (const key of USER_SECRETS) if (user[key] !== undefined) errors.push(`${at}.${key}: a credential in the kubeconfig would ship with the package; with auth: azure remove the user's credentials (an exec user for kubelogin is fine)`);
    const cached = Object.keys(user['auth-provider']?.config ?? {}).filter((k) => CACHED_TOKENS.includes(k));
    for (const key of cached) errors.push(`${at}.auth-provider.config.${key}: a cached token would ship with the package; remove it`);
    const exec = user.exec;
    (exec?.env ?? []).forEach((v, j) => {
      if (SECRET_NAME.test(v?.name ?? '')) errors.push(`${at}.exec.env[${j}] (${v.name}): a secret for the exec plugin would ship with the package; remove it`);
    });
    (exec?.args ?? []).forEach((arg, j) => {
      if (/^--?(client-secret|token|password)\b/i.test(String(arg))) errors.push(`${at}.exec.args[${j}]: a secret for the exec plugin would ship with the package; remove it`);
    });
  });
  (doc?.clusters ?? []).forEach((entry, i) => {
    if (entry?.cluster?.['insecure-skip-tls-verify'] === true) {
      errors.push(`${field}: clusters[${i}].cluster.insecure-skip-tls-verify: with auth: azure the identity's token would go to whoever answers; give the cluster's certificate-authority-data`);
    }
  });
  return errors;
}
