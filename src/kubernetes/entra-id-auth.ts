/**
 * Bearer tokens from Microsoft Entra ID for an AKS cluster with Entra ID authentication,
 * plugged into @kubernetes/client-node as an authenticator. The token is cached and fetched
 * again shortly before it expires (or when the credential says to refresh), with one fetch
 * shared by concurrent requests; if a refresh fails while the old token is still valid, the old
 * one is used.
 */
import type { RequestOptions } from 'node:https';
import type { AccessToken, TokenCredential } from '@azure/identity';
import type { User } from '@kubernetes/client-node';
import { systemClock, type Clock } from '../clock.js';

/** The AKS AAD server application; the same for every AKS cluster. */
export const AKS_SCOPE = '6dae42f8-4368-4678-94ff-3960e28e3630/.default';
/** Auth provider name of the kubeconfig user this authenticator serves. */
export const ENTRA_ID_AUTH_PROVIDER = 'drover-entra-id';
const DEFAULT_REFRESH_MARGIN_MS = 5 * 60_000;

export interface EntraIdAuthOptions {
  clock?: Clock;
  /** Refresh this long before expiry; default 5 min. */
  refreshMarginMs?: number;
}

export class EntraIdAuthenticator {
  private token: AccessToken | undefined;
  private refreshing: Promise<AccessToken> | undefined;
  private readonly clock: Clock;
  private readonly refreshMarginMs: number;

  constructor(
    private readonly credential: TokenCredential,
    options: EntraIdAuthOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.refreshMarginMs = options.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS;
  }

  isAuthProvider(user: User): boolean {
    return (user.authProvider as { name?: unknown } | undefined)?.name === ENTRA_ID_AUTH_PROVIDER;
  }

  async applyAuthentication(_user: User, opts: RequestOptions): Promise<void> {
    const token = await this.currentToken();
    opts.headers = { ...opts.headers, Authorization: `Bearer ${token}` };
  }

  private async currentToken(): Promise<string> {
    const cached = this.token;
    const now = this.clock.now();
    if (cached && now < (cached.refreshAfterTimestamp ?? cached.expiresOnTimestamp - this.refreshMarginMs)) {
      return cached.token;
    }
    this.refreshing ??= this.fetchToken().finally(() => {
      this.refreshing = undefined;
    });
    try {
      this.token = await this.refreshing;
      return this.token.token;
    } catch (error) {
      if (cached && now < cached.expiresOnTimestamp) return cached.token;
      throw error;
    }
  }

  private async fetchToken(): Promise<AccessToken> {
    const token = await this.credential.getToken(AKS_SCOPE);
    if (!token) throw new Error(`Entra ID credential returned no token for ${AKS_SCOPE}`);
    return token;
  }
}
