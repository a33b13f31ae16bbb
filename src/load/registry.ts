/**
 * Every load source kind Drover knows, one line each. The configuration's union of sources, the
 * collection loop, status, replay and the deploy tools read the kinds from here; adding a kind
 * is its module and its line.
 */
import { azureMonitorKind } from './azure-monitor-source.js';
import { httpKind } from './http-source.js';
import { prometheusKind } from './prometheus-source.js';
import { pushKind } from './push-source.js';
import { queueKind } from './queue-source.js';
import { resourceKind } from './resource-source.js';
import { serviceBusKind } from './service-bus-source.js';
import type { SourceKind } from './source-kind.js';

export const SOURCE_KINDS = [httpKind, queueKind, pushKind, prometheusKind, serviceBusKind, azureMonitorKind, resourceKind] as const;

export type SourceKindName = (typeof SOURCE_KINDS)[number]['name'];

const BY_NAME = new Map<string, SourceKind>(SOURCE_KINDS.map((k) => [k.name, k as unknown as SourceKind]));

/** The kind a parsed source names; the schema admits no other, so a miss is a bug. */
export function kindOf(name: string): SourceKind {
  const kind = BY_NAME.get(name);
  if (!kind) throw new Error(`no load source kind "${name}"`);
  return kind;
}
