import type { DroverConfig } from '../src/config/schema.js';

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
  deps: { env: Record<string, string | undefined>; exists: (relativePath: string) => boolean; configDir?: string },
): DeployCheckReport;
