/**
 * Builds the KubeConfig Drover talks to a cluster with, from the `kubernetes` section of the
 * configuration:
 *   - `kubeconfig: <path>` (`~` expanded; default ~/.kube/config), optionally a `context`;
 *   - `inCluster: true`: the pod's service account;
 *   - `auth: azure`: an Entra ID token for AKS instead of the kubeconfig's (or in-cluster) user,
 *     keeping its cluster entry (server and CA).
 */
import { homedir } from 'node:os';
import path from 'node:path';
import { DefaultAzureCredential, type TokenCredential } from '@azure/identity';
import { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../clock.js';
import { redact } from '../redact.js';
import { EntraIdAuthenticator, ENTRA_ID_AUTH_PROVIDER } from './entra-id-auth.js';

export interface KubernetesAccess {
  kubeconfig?: string;
  context?: string;
  inCluster?: boolean;
  auth?: 'azure';
}

export interface KubeConfigDeps {
  /** For `auth: azure`; default DefaultAzureCredential. */
  credential?: TokenCredential;
  clock?: Clock;
  homeDir?: string;
  /** Prefix for the service account files (tests). */
  inClusterPathPrefix?: string;
}

export const DEFAULT_KUBECONFIG = '~/.kube/config';

export function expandHome(file: string, homeDir: string = homedir()): string {
  if (file === '~') return homeDir;
  if (file.startsWith('~/')) return path.join(homeDir, file.slice(2));
  return file;
}

export function loadKubeConfig(access: KubernetesAccess, deps: KubeConfigDeps = {}): KubeConfig {
  if (access.inCluster && access.kubeconfig !== undefined) {
    throw new Error('kubernetes: set either kubeconfig or inCluster, not both');
  }
  const kc = new KubeConfig();
  if (access.inCluster) {
    kc.loadFromCluster(deps.inClusterPathPrefix);
  } else {
    const file = expandHome(access.kubeconfig ?? DEFAULT_KUBECONFIG, deps.homeDir);
    try {
      kc.loadFromFile(file);
    } catch (error) {
      throw new Error(`kubernetes.kubeconfig: cannot load ${file}: ${describeLoadError(error)}`);
    }
    if (access.context !== undefined) {
      if (!kc.getContextObject(access.context)) {
        throw new Error(`kubernetes.context: ${JSON.stringify(access.context)} is not in ${file}`);
      }
      kc.setCurrentContext(access.context);
    }
  }
  if (access.auth === 'azure') useEntraId(kc, deps);
  return kc;
}

/**
 * The YAML parser quotes the lines around a syntax error, and in a kubeconfig those are often
 * a token or key data: only the position is kept, and the original error (its `cause`, which a
 * logger might print) is dropped.
 */
export function describeLoadError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const firstLine = message.split('\n', 1)[0] ?? '';
  const position = /\((\d+):(\d+)\)\s*$/.exec(firstLine);
  if (position) return `not valid YAML at line ${position[1]}, column ${position[2]}`;
  if (error instanceof SyntaxError) return 'not valid JSON';
  // Anything else (a missing file, a missing field) names no content of the file; cut to one line all the same.
  return redact(firstLine);
}

function useEntraId(kc: KubeConfig, deps: KubeConfigDeps): void {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubernetes.auth: azure needs a cluster entry in the kubeconfig\'s current context');
  kc.loadFromClusterAndUser(cluster, { name: 'drover-entra-id', authProvider: { name: ENTRA_ID_AUTH_PROVIDER, config: {} } });
  const options = deps.clock ? { clock: deps.clock } : {};
  kc.addAuthenticator(new EntraIdAuthenticator(deps.credential ?? new DefaultAzureCredential(), options));
}
