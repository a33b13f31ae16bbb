/**
 * Which push a reconcile serves, and how status shows it: the push row's latest push is served
 * once, by the reconcile whose samples row records its tag. Apart from the kind's module
 * (push-source.ts), which the configuration's schema reaches through the registry, so that these
 * helpers may read the configuration's types without an import cycle.
 */
import { SINGLE_SOURCE_NAME } from './sources.js';
import type { LoadSpecConfig } from '../config/policy-schema.js';
import type { PushRead, StoredPush } from './push-store.js';
import { pushKind } from './push-source.js';

/** A push to serve: its value, and the tag the samples row records once it is served. */
export interface PushToServe {
  value: number;
  tag: string;
}

export function pushToServe(push: PushRead | undefined, servedTag: string | undefined): PushToServe | undefined {
  return push && push.tag !== servedTag ? { value: push.value, tag: push.tag } : undefined;
}

/** The name of the target's push source (a target without `load` is one); undefined when it has none. */
export function pushSourceName(load: LoadSpecConfig | undefined): string | undefined {
  if (load === undefined) return SINGLE_SOURCE_NAME;
  return load.sources.find((s) => s.source === pushKind.name)?.name;
}

/** A push source as `status --json` shows it in `targets[].sources[]`. */
export interface PushSourceStatus {
  name: string;
  kind: 'push';
  /** The latest push; null before the first. */
  value: number | null;
  /** When it landed in storage (ISO); null before the first. */
  at: string | null;
  /** Whether a reconcile has decided with it. */
  served: boolean;
}

export function pushSourceStatus(name: string, push: StoredPush | undefined, servedTag: string | undefined): PushSourceStatus {
  if (!push) return { name, kind: 'push', value: null, at: null, served: false };
  return { name, kind: 'push', value: push.value, at: new Date(push.at).toISOString(), served: push.tag === servedTag };
}
