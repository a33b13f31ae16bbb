/**
 * The `push` load source: its values arrive from outside (`drover enqueue --load`, the push
 * transport in src/queue), never read by Drover. Its reading is the target's push row
 * (push-store.ts) while that row holds a push no reconcile has served yet; a served push is no
 * new reading (the gauge holds it). Which push was served, the samples row says (its `pushTag`),
 * written by the reconcile that decided with it, so every host and every process judges it the
 * same (push-served.ts). The work a pushed value stands for waits with the pusher while the target
 * sleeps.
 */
import { defineKind } from './source-kind.js';

export const pushKind = defineKind({
  name: 'push',
  keys: {},
  traits: { delivery: 'pushed', holdsWork: true, sampling: 'gauge', metricType: { default: 'total', fixed: false } },
  describe: () => 'push',
});
