import { DefaultAzureCredential, ManagedIdentityCredential } from '@azure/identity';
import { describe, expect, it } from 'vitest';
import { DEV_TOKEN, createArmCredential, isLoopbackHost } from '../../src/azure/credential.js';
import { CredentialConfigError } from '../../src/azure/errors.js';

describe('the dev credential', () => {
  it.each([
    'https://127.0.0.1:8443',
    'https://127.0.0.2',
    'https://localhost:1234/',
    'https://[::1]:8443',
    'https://[::ffff:127.0.0.1]:8443',
  ])('is allowed for the loopback endpoint %s and sends its static token', async (endpoint) => {
    const credential = createArmCredential({ credential: 'dev', resourceManagerEndpoint: endpoint });
    expect((await credential.getToken('https://management.azure.com/.default'))?.token).toBe(DEV_TOKEN);
  });

  it.each([
    'https://management.azure.com',
    'https://management.usgovcloudapi.net',
    'https://10.0.0.4',
    'https://localhost.example.com',
    'https://127.0.0.1.nip.io',
    'https://arm.localhost:8443',
    'https://[::ffff:10.0.0.4]',
  ])('is refused for %s, naming the setting and the endpoint', (endpoint) => {
    let caught: unknown;
    try {
      createArmCredential({ credential: 'dev', resourceManagerEndpoint: endpoint });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CredentialConfigError);
    expect((caught as Error).message).toContain('azure.credential');
    expect((caught as Error).message).toContain(endpoint);
  });

  it('is refused for an endpoint that is not a URL', () => {
    expect(() => createArmCredential({ credential: 'dev', resourceManagerEndpoint: 'not a url' })).toThrow(
      'azure.resourceManagerEndpoint',
    );
  });

  it('sends the configured token when one is given', async () => {
    const credential = createArmCredential({ credential: 'dev', resourceManagerEndpoint: 'https://127.0.0.1', devToken: 't0k' });
    expect((await credential.getToken('scope'))?.token).toBe('t0k');
  });
});

describe('Azure credentials', () => {
  it.each([
    { name: 'default without a client id', settings: {}, env: {} },
    { name: 'default with a client id from the settings', settings: { managedIdentityClientId: 'c1' }, env: {} },
    { name: 'default with a client id from AZURE_CLIENT_ID', settings: {}, env: { AZURE_CLIENT_ID: 'c2' } },
  ])('$name is a DefaultAzureCredential', ({ settings, env }) => {
    const credential = createArmCredential({ credential: 'default', resourceManagerEndpoint: 'https://management.azure.com', ...settings }, env);
    expect(credential).toBeInstanceOf(DefaultAzureCredential);
  });

  it.each([
    { name: 'system-assigned', settings: {} },
    { name: 'user-assigned', settings: { managedIdentityClientId: 'c1' } },
  ])('managed-identity ($name) is a ManagedIdentityCredential', ({ settings }) => {
    const credential = createArmCredential({ credential: 'managed-identity', resourceManagerEndpoint: 'https://management.azure.com', ...settings });
    expect(credential).toBeInstanceOf(ManagedIdentityCredential);
  });
});

describe('loopback hosts', () => {
  it.each([
    { host: 'localhost', want: true },
    { host: 'api.localhost', want: false },
    { host: 'localhost.', want: false },
    { host: 'localhost.evil.example', want: false },
    { host: '127.0.0.1.nip.io', want: false },
    { host: '[::ffff:7f00:1]', want: true },
    { host: '0:0:0:0:0:0:0:1', want: true },
    { host: '127.0.0.1', want: true },
    { host: '127.255.0.9', want: true },
    { host: '[::1]', want: true },
    { host: '::ffff:127.0.0.1', want: true },
    { host: '128.0.0.1', want: false },
    { host: '::2', want: false },
    { host: 'management.azure.com', want: false },
  ])('$host → $want', ({ host, want }) => {
    expect(isLoopbackHost(host)).toBe(want);
  });
});
