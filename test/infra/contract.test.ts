/**
 * The contract between infra/ and the code that runs in Azure: every setting the code reads is
 * provisioned, and the tables and queues have the names the code derives (roles.test.ts checks
 * the rights). The code side is scanned, never listed here: a new `env.X` or `%X%` shows up in
 * these tests by itself.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { storageNames } from '../../src/state/storage.js';
import { DEFAULT_CONFIG_FILE, parseConfig } from '../../src/config/load.js';
import { DEFAULT_SCHEDULE } from '../../src/host/timer.js';
import { DEPLOY_DIR } from '../../scripts/build.mjs';
import {
  interpolate,
  moduleDeclaration,
  objectEntries,
  readInfra,
  stringArray,
  varBody,
} from './support/bicep.js';
import {
  ROOT,
  bindingConnections,
  bindingExpressions,
  environmentReads,
  functionAppSources,
  names,
  type Read,
  type SourceGraph,
} from './support/source-graph.js';

/** Read by the code, set by the platform on every instance, never by the Bicep. */
const PLATFORM_PROVIDED: Record<string, string> = {
  WEBSITE_INSTANCE_ID: 'App Service names each instance; lease holders carry it, and the host name stands in when it is absent',
};

/** Read by the code, deliberately not set: the Bicep sets another form of the same thing. */
const SET_IN_ANOTHER_FORM: Record<string, { instead: string[]; why: string }> = {
  AzureWebJobsStorage: {
    instead: ['AzureWebJobsStorage__credential', 'AzureWebJobsStorage__tableServiceUri', 'AzureWebJobsStorage__queueServiceUri'],
    why: 'a connection string carries the account key, which the account refuses; it is for Azurite and local runs',
  },
  AzureWebJobsStorage__accountName: {
    instead: ['AzureWebJobsStorage__tableServiceUri', 'AzureWebJobsStorage__queueServiceUri'],
    why: 'the service URIs say the same and win over the account name, in the host and in the code',
  },
};

/** Set for the Functions host, which reads them itself. */
const HOST_SETTING = /^(AzureWebJobsStorage__\w+|APPLICATIONINSIGHTS_CONNECTION_STRING|APPLICATIONINSIGHTS_AUTHENTICATION_STRING)$/;

const where = (reads: readonly Read[]) => reads.map((r) => `${r.file}:${r.line}`).join(', ');

let graph: SourceGraph;
let functionFiles: string[];
let appSettings: Map<string, string>;
const main = readInfra('main.bicep');

beforeAll(async () => {
  graph = await functionAppSources();
  functionFiles = graph.files.filter((f) => f.startsWith('functions/'));
  appSettings = objectEntries(varBody(readInfra('app/functions.bicep'), 'appSettings'));
});

describe('the sources the function app runs', () => {
  it('are found from functions/ through static and dynamic imports', () => {
    expect(functionFiles.length).toBeGreaterThan(0);
    // The composition root, the storage layer and the lazily imported ARM adapter are all reached.
    expect(graph.files).toEqual(
      expect.arrayContaining(['src/runtime/runtime.ts', 'src/state/storage.ts', 'src/config/load.ts', 'src/azure/compute-adapter.ts']),
    );
    expect(graph.files.filter((f) => f.startsWith('sim/') || f.startsWith('test/'))).toEqual([]);
  });
});

describe('app settings', () => {
  it('every environment variable the code reads is set by the Bicep, provided by the platform, or set in another form', () => {
    const reads = environmentReads(graph.files);
    expect(names(reads)).toEqual(expect.arrayContaining(['AZURE_CLIENT_ID', 'DROVER_CONFIG']));
    const unset = names(reads).filter((name) => !appSettings.has(name) && !(name in PLATFORM_PROVIDED) && !(name in SET_IN_ANOTHER_FORM));
    expect(unset.map((name) => `${name} (${where(reads.filter((r) => r.name === name))})`)).toEqual([]);
  });

  it('every %X% binding expression names an app setting', () => {
    const expressions = bindingExpressions(graph.files);
    expect(names(expressions)).toEqual(expect.arrayContaining(['DROVER_SCHEDULE', 'DROVER_RECONCILE_QUEUE', 'DROVER_PROBE_QUEUE']));
    const unset = expressions.filter((e) => !appSettings.has(e.name));
    expect(unset.map((e) => `${e.name} (${e.file}:${e.line})`)).toEqual([]);
  });

  it('every binding connection is an identity-based connection, never a connection string', () => {
    const connections = names(bindingConnections(functionFiles));
    expect(connections.length).toBeGreaterThan(0);
    for (const connection of connections) {
      expect(appSettings.has(connection), `${connection} must not be a connection string`).toBe(false);
      expect(appSettings.get(`${connection}__credential`)).toBe("'managedidentity'");
      expect(appSettings.get(`${connection}__clientId`)).toBe('identityClientId');
      expect([...appSettings.keys()].filter((k) => k.startsWith(`${connection}__`) && k.endsWith('ServiceUri')).length).toBeGreaterThan(0);
    }
  });

  it.each(Object.entries(SET_IN_ANOTHER_FORM).map(([name, { instead, why }]) => ({ name, instead, why })))(
    '$name is left unset and its replacements are set ($why)',
    ({ name, instead }) => {
      expect(appSettings.has(name)).toBe(false);
      for (const setting of instead) expect(appSettings.has(setting), setting).toBe(true);
    },
  );

  it('every setting the Bicep makes is read by the code or by the Functions host', () => {
    const read = new Set([...names(environmentReads(graph.files)), ...names(bindingExpressions(graph.files))]);
    expect([...appSettings.keys()].filter((key) => !read.has(key) && !HOST_SETTING.test(key))).toEqual([]);
  });

  it('the identity that connects is the one the code authenticates as', () => {
    expect(appSettings.get('AZURE_CLIENT_ID')).toBe('identityClientId');
    expect(appSettings.get('APPLICATIONINSIGHTS_AUTHENTICATION_STRING')).toBe("'ClientId=${identityClientId};Authorization=AAD'");
  });

  it('DROVER_CONFIG names the file the package ships, which is also the code\'s default', () => {
    expect(interpolate(appSettings.get('DROVER_CONFIG')!, {})).toBe(DEFAULT_CONFIG_FILE);
  });

  it('the timer schedule defaults to the local host\'s schedule', () => {
    expect(appSettings.get('DROVER_SCHEDULE')).toBe('reconcileSchedule');
    expect(main).toContain(`var droverSchedule = empty(reconcileSchedule) ? '${DEFAULT_SCHEDULE}' : reconcileSchedule`);
    expect(moduleDeclaration(main, 'app/functions.bicep')).toMatch(/\breconcileSchedule: droverSchedule\b/);
  });
});

describe('storage names', () => {
  const defaultPrefix = /var droverPrefix = empty\(storagePrefix\) \? '([a-z0-9]+)' : storagePrefix/.exec(main)?.[1];

  it('the Bicep\'s default prefix is the configuration\'s', () => {
    expect(defaultPrefix).toBe(parseConfig({ storage: {} }).storage?.prefix);
  });

  it('the function app and the storage module get the same prefix', () => {
    expect(moduleDeclaration(main, 'app/functions.bicep')).toMatch(/\bstoragePrefix: droverPrefix\b/);
    expect(moduleDeclaration(main, 'app/storage.bicep')).toMatch(/\bprefix: droverPrefix\b/);
  });

  it.each(['drover', 'acme2'])('with prefix %s the queue triggers bind to the queues the code sends to', (prefix) => {
    const queues = storageNames(prefix).queues;
    expect(interpolate(appSettings.get('DROVER_RECONCILE_QUEUE')!, { storagePrefix: prefix })).toBe(queues.reconcile);
    expect(interpolate(appSettings.get('DROVER_PROBE_QUEUE')!, { storagePrefix: prefix })).toBe(queues.probe);
  });

  it.each(['drover', 'acme2'])('with prefix %s the Bicep declares exactly the code\'s tables, queues and poison queues', (prefix) => {
    const storage = readInfra('app/storage.bicep');
    expect(storage).toContain("name: '${prefix}${suffix}'");
    expect(storage).toContain("var queueNames = flatten(map(queueSuffixes, suffix => ['${prefix}-${suffix}', '${prefix}-${suffix}-poison']))");
    const tables = stringArray(varBody(storage, 'tableSuffixes')).map((suffix) => `${prefix}${suffix}`);
    const queues = stringArray(varBody(storage, 'queueSuffixes')).flatMap((suffix) => [`${prefix}-${suffix}`, `${prefix}-${suffix}-poison`]);
    const names = storageNames(prefix);
    expect(tables.sort()).toEqual(Object.values(names.tables).sort());
    expect(queues.sort()).toEqual(Object.values(names.queues).flatMap((q) => [q, `${q}-poison`]).sort());
  });
});

describe('the platform', () => {
  const functions = readInfra('app/functions.bicep');

  it.each([
    { name: 'the storage account refuses shared keys', text: 'allowSharedKeyAccess: false', in: main },
    { name: 'Application Insights refuses its ingestion key', text: 'disableLocalAuth: true', in: main },
    { name: 'the plan is Flex Consumption', text: "name: 'FC1'", in: main },
    { name: 'the runtime is Node.js 22, set in functionAppConfig', text: "name: 'node'\n        version: '22'", in: functions },
    { name: 'the deployment package is read with the user-assigned identity', text: "type: 'UserAssignedIdentity'", in: functions },
    { name: 'publishing passwords are disabled', text: "{ name: 'scm', allow: false }", in: functions },
  ])('$name', ({ text, in: source }) => {
    expect(source).toContain(text);
  });

  it('Flex Consumption takes no FUNCTIONS_WORKER_RUNTIME or WEBSITE_RUN_FROM_PACKAGE setting', () => {
    expect([...appSettings.keys()].filter((k) => /^(FUNCTIONS_WORKER_RUNTIME|WEBSITE_RUN_FROM_PACKAGE|FUNCTIONS_EXTENSION_VERSION)$/.test(k))).toEqual([]);
  });
});

describe('azd', () => {
  const azureYaml = parseYaml(readFileSync(path.join(ROOT, 'azure.yaml'), 'utf8')) as {
    services: Record<string, { project: string; language: string; host: string; dist: string; remoteBuild: boolean }>;
  };
  const parameters = (JSON.parse(readInfra('main.parameters.json')) as { parameters: Record<string, { value: string }> }).parameters;

  it('deploys one function app service from the directory the build writes, without a server-side build', () => {
    expect(azureYaml.services).toEqual({ drover: { project: '.', language: 'ts', host: 'function', dist: DEPLOY_DIR, remoteBuild: false } });
    expect(readInfra('app/functions.bicep')).toContain("'azd-service-name': 'drover'");
  });

  it('maps every parameter to a declared one, and every parameter without a default is mapped', () => {
    const declared = [...main.matchAll(/^param (\w+) (\w+)( = .*)?$/gm)].map((m) => ({ name: m[1]!, hasDefault: Boolean(m[3]) }));
    expect(Object.keys(parameters).filter((p) => !declared.some((d) => d.name === p))).toEqual([]);
    expect(declared.filter((d) => !d.hasDefault && !(d.name in parameters)).map((d) => d.name)).toEqual([]);
  });

  it('the deploy checks compare the configuration with the azd environment values that reach the Bicep', () => {
    const checks = readFileSync(path.join(ROOT, 'scripts/deploy-checks.mjs'), 'utf8');
    const mapped = Object.values(parameters).map((p) => /^\$\{(\w+)\}$/.exec(p.value)?.[1]);
    const compared = [...new Set([...checks.matchAll(/\benv\.(DROVER_\w+)/g)].map((m) => m[1]!))];
    expect(compared.length).toBeGreaterThan(0);
    expect(compared.filter((name) => !mapped.includes(name))).toEqual([]);
  });
});
