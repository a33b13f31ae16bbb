/**
 * The TokenCredential for ARM, from the `azure.credential` setting:
 *
 * - `default`: DefaultAzureCredential (environment, workload identity, managed identity, CLI …),
 *   with a user-assigned identity's client id when one is given (else `AZURE_CLIENT_ID`).
 * - `managed-identity`: ManagedIdentityCredential only (system-assigned without a client id).
 * - `dev`: a fixed bearer token, for the local ARM simulator. Refused for any endpoint that is
 *   not on this machine, so a development config can never send a fake token to Azure.
 */
import { isIP } from 'node:net';
import type { AccessToken, TokenCredential } from '@azure/identity';
import { DefaultAzureCredential, ManagedIdentityCredential } from '@azure/identity';
import { CredentialConfigError } from './errors.js';

export type CredentialMode = 'default' | 'managed-identity' | 'dev';

export interface CredentialSettings {
  credential: CredentialMode;
  resourceManagerEndpoint: string;
  /** User-assigned identity; for `default`, falls back to `AZURE_CLIENT_ID`. */
  managedIdentityClientId?: string;
  /** The token `dev` sends; any value works against the simulator. */
  devToken?: string;
}

export const DEV_TOKEN = 'drover-dev-token';

export function createArmCredential(
  settings: CredentialSettings,
  env: NodeJS.ProcessEnv = process.env,
): TokenCredential {
  switch (settings.credential) {
    case 'default': {
      const clientId = settings.managedIdentityClientId ?? env.AZURE_CLIENT_ID;
      return clientId
        ? new DefaultAzureCredential({ managedIdentityClientId: clientId })
        : new DefaultAzureCredential();
    }
    case 'managed-identity': {
      // A user-assigned identity (the deployment's) is named by AZURE_CLIENT_ID when the config does not.
      const clientId = settings.managedIdentityClientId ?? env.AZURE_CLIENT_ID;
      return clientId ? new ManagedIdentityCredential({ clientId }) : new ManagedIdentityCredential();
    }
    case 'dev': {
      const host = hostOf(settings.resourceManagerEndpoint);
      if (!isLoopbackHost(host)) {
        throw new CredentialConfigError(
          `azure.credential: "dev" sends a static token and is only allowed for a loopback ` +
            `azure.resourceManagerEndpoint, not "${settings.resourceManagerEndpoint}"`,
        );
      }
      return staticTokenCredential(settings.devToken ?? DEV_TOKEN);
    }
  }
}

export function staticTokenCredential(token: string): TokenCredential {
  return {
    getToken: (): Promise<AccessToken> =>
      Promise.resolve({ token, expiresOnTimestamp: Date.now() + 3_600_000 }),
  };
}

/** `localhost`, 127.0.0.0/8 and ::1 (also IPv4-mapped). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./.test(bare);
  return false;
}

function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).hostname;
  } catch {
    throw new CredentialConfigError(
      `azure.resourceManagerEndpoint: "${endpoint}" is not a URL`,
    );
  }
}
