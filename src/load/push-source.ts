/**
 * The `push` load source: values arrive with reconcile messages (`drover enqueue --load`, the
 * push transport in src/queue), never read by Drover. A pushed value is a gauge: it holds until
 * the next one, and the work it stands for waits with the pusher while the target sleeps.
 */
import { defineKind } from './source-kind.js';

export const pushKind = defineKind({
  name: 'push',
  keys: {},
  traits: { delivery: 'pushed', holdsWork: true, sampling: 'gauge', metricType: { default: 'total', fixed: false } },
  describe: () => 'push',
});
