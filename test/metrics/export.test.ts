// When metrics go to Azure Monitor, and with which identity.
import { describe, expect, it } from 'vitest';
import { ensureMetricsExport, metricsExportSettings } from '../../src/metrics/export.js';
import { silentLog } from '../../src/log.js';

const CONNECTION = 'InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://127.0.0.1:1/';

describe('metricsExportSettings', () => {
  it.each<{ name: string; env: NodeJS.ProcessEnv; want: object | undefined }>([
    { name: 'no connection string: no export', env: { AZURE_CLIENT_ID: 'abc' }, want: undefined },
    { name: 'a blank connection string: no export', env: { APPLICATIONINSIGHTS_CONNECTION_STRING: '  ' }, want: undefined },
    { name: 'a connection string alone: the system-assigned identity', env: { APPLICATIONINSIGHTS_CONNECTION_STRING: CONNECTION }, want: { connectionString: CONNECTION, clientId: undefined } },
    {
      name: 'the client id of APPLICATIONINSIGHTS_AUTHENTICATION_STRING wins',
      env: { APPLICATIONINSIGHTS_CONNECTION_STRING: CONNECTION, APPLICATIONINSIGHTS_AUTHENTICATION_STRING: 'Authorization=AAD;ClientId=11111111-2222', AZURE_CLIENT_ID: 'other' },
      want: { clientId: '11111111-2222' },
    },
    { name: 'else AZURE_CLIENT_ID', env: { APPLICATIONINSIGHTS_CONNECTION_STRING: CONNECTION, AZURE_CLIENT_ID: 'uami' }, want: { clientId: 'uami' } },
  ])('$name', ({ env, want }) => {
    const got = metricsExportSettings(env);
    if (want === undefined) expect(got).toBeUndefined();
    else expect(got).toMatchObject(want);
  });
});

describe('ensureMetricsExport', () => {
  it('registers nothing without a connection string', async () => {
    expect(await ensureMetricsExport({}, silentLog)).toBeUndefined();
  });

  it('builds one Azure Monitor meter provider per process', async () => {
    const env = { APPLICATIONINSIGHTS_CONNECTION_STRING: CONNECTION };
    const provider = await ensureMetricsExport(env, silentLog);
    expect(provider).toBeDefined();
    expect(await ensureMetricsExport(env, silentLog)).toBe(provider);
    await (provider as unknown as { shutdown(): Promise<void> }).shutdown().catch(() => undefined);
  });
});
