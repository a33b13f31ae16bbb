import type { DroverConfig } from '../src/config/schema.js';
import type { SourceKind } from '../src/load/source-kind.js';

export interface DeployCheckReport {
  /** The package could not work in Azure. */
  errors: string[];
  /** The identity will lack a right unless it is granted outside azd. */
  warnings: string[];
  /** Files the configuration opens at run time, relative to its directory, to ship with it. */
  files: string[];
}

export function checkDeployConfig(
  config: DroverConfig,
  deps: {
    env: Record<string, string | undefined>;
    exists: (relativePath: string) => boolean;
    read?: (relativePath: string) => string;
    configDir?: string;
    /** The source kinds (src/load/registry.ts SOURCE_KINDS): each one's `secrets` check. */
    kinds?: readonly Pick<SourceKind, 'name' | 'secrets'>[];
  },
): DeployCheckReport;

/** Credentials and insecure TLS in a kubeconfig shipped with `auth: azure`, as errors naming `field` and the path in the file. */
export function secretsInKubeconfig(field: string, text: string): string[];
