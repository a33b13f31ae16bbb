/**
 * The grants every configured load source needs, from its kind's `grants` (load/source-kind.ts):
 * what the deploy tools assign (`scripts/kubernetes-rbac.mjs` takes the Kubernetes ones), each
 * with the path of the source that needs it. Pure: a validated configuration in.
 */
import type { DroverConfig } from '../config/schema.js';
import { kindOf } from './registry.js';
import type { SourceGrant } from './source-kind.js';
import { targetRefOf } from './source-ports.js';
import { loadSources } from './sources.js';

export interface PlacedGrant {
  /** `targets[0].load`, `targets[1].load.sources[2]`. */
  at: string;
  grant: SourceGrant;
}

export function sourceGrants(config: Pick<DroverConfig, 'azure' | 'pools' | 'targets'>): PlacedGrant[] {
  return config.targets.flatMap((target, i) =>
    loadSources(target.load).flatMap(({ source, path }) =>
      (kindOf(source.source).grants?.(source, targetRefOf(config, target)) ?? []).map((grant) => ({ at: `targets[${i}].${path.join('.').replace(/\.(\d+)/g, '[$1]')}`, grant })),
    ),
  );
}
