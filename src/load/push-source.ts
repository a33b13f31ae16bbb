/**
 * The `push` source: its reading is the target's push row (push-store.ts) while that row holds a
 * push no reconcile has served yet; a served push is no new reading (the gauge holds it). Which
 * push was served, the samples row says (its `pushTag`), written by the reconcile that decided
 * with it, so every host and every process judges it the same.
 */
import { isSeveral, SINGLE_SOURCE_NAME } from './sources.js';
import type { TargetLoadConfig } from '../config/schema.js';
import type { PushRead, StoredPush } from './push-store.js';

/** A push to serve: its value, and the tag the samples row records once it is served. */
export interface PushToServe {
  value: number;
  tag: string;
}

export function pushToServe(push: PushRead | undefined, servedTag: string | undefined): PushToServe | undefined {
  return push && push.tag !== servedTag ? { value: push.value, tag: push.tag } : undefined;
}

/** The name of the target's push source (a target without `load` is one); undefined when it has none. */
export function pushSourceName(load: TargetLoadConfig | undefined): string | undefined {
  if (load === undefined) return SINGLE_SOURCE_NAME;
  if (isSeveral(load)) return load.sources.find((s) => s.source === 'push')?.name;
  return load.source === 'push' ? SINGLE_SOURCE_NAME : undefined;
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
