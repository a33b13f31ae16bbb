/**
 * The `push` load source: its values arrive from outside (`drover enqueue --load`, the push
 * transport in src/queue), never read by Drover. Its reading is the target's push row
 * (push-store.ts) while that row holds a push no reconcile has served yet; a served push is no
 * new reading (the gauge holds it). Which push was served, the samples row says (its `pushTag`),
 * written by the reconcile that decided with it, so every host and every process judges it the
 * same. The work a pushed value stands for waits with the pusher while the target sleeps.
 */
import { defineKind } from './source-kind.js';
import { SINGLE_SOURCE_NAME } from './sources.js';
import type { LoadSpecConfig } from '../config/policy-schema.js';
import type { PushRead, StoredPush } from './push-store.js';

export const pushKind = defineKind({
  name: 'push',
  keys: {},
  traits: { delivery: 'pushed', holdsWork: true, sampling: 'gauge', metricType: { default: 'total', fixed: false } },
  describe: () => 'push',
});

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
