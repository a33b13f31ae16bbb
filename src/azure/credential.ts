/**
 * The TokenCredential for ARM, from the `azure.credential` setting:
 *
 * - `default`: DefaultAzureCredential (environment, workload identity, managed identity, CLI …),
 *   with a user-assigned identity's client id when one is given (else `AZURE_CLIENT_ID`).
 * - `managed-identity`: ManagedIdentityCredential only (system-assigned without a client id).
 * - `dev`: a fixed bearer token, for the local ARM simulator. Refused for any endpoint that is
 *   not on this machine, so a development config can never send a fake token to Azure.
 */
import { isLoopbackHost } from '../config/loopback.js';
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
    case 'default':
    case 'managed-identity':
      return identityCredential(settings.credential, settings.managedIdentityClientId, env);
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

/**
 * Drover's own identity (ARM, storage, queue load sources): DefaultAzureCredential or
 * ManagedIdentityCredential, for the user-assigned identity `clientId` names, else
 * `AZURE_CLIENT_ID` (the deployment sets it), else the system-assigned one.
 */
export function identityCredential(
  mode: 'default' | 'managed-identity',
  clientId: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): TokenCredential {
  const id = clientId ?? env.AZURE_CLIENT_ID;
  if (mode === 'managed-identity') return id ? new ManagedIdentityCredential({ clientId: id }) : new ManagedIdentityCredential();
  return id ? new DefaultAzureCredential({ managedIdentityClientId: id }) : new DefaultAzureCredential();
}

export function staticTokenCredential(token: string): TokenCredential {
  return {
    getToken: (): Promise<AccessToken> =>
      Promise.resolve({ token, expiresOnTimestamp: Date.now() + 3_600_000 }),
  };
}

export { isLoopbackHost } from '../config/loopback.js';

function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).hostname;
  } catch {
    throw new CredentialConfigError(
      `azure.resourceManagerEndpoint: "${endpoint}" is not a URL`,
    );
  }
}
