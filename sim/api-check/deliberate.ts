/**
 * Traffic that is off the specifications on purpose: the simulators' own tests send malformed
 * requests (a wrong path, a bad patch, a missing field) to show how the simulators refuse them.
 * Their exchanges name their test file (RecordedExchange.source) and are left out of the check;
 * Drover's traffic, from every other file and from the demo, is checked whole.
 */
import type { RecordedExchange } from '../recorder.js';

/** Test files (or folders, ending in `/`) whose requests are deliberately malformed, each with its reason. */
export const DELIBERATE_SOURCES: Readonly<Record<string, string>> = {
  'test/sim/arm/': "the ARM simulator's own tests: unknown paths, bad bodies and faults, sent by hand",
  'test/sim/kubernetes/': "the Kubernetes simulator's own tests: bad patches and unknown resources, sent by hand",
  'test/sim/recorder.test.ts': "the recorder's own test: made-up exchanges",
  'test/api-check/': "the check's own test: exchanges that must fail it",
};

export function isDeliberate(exchange: RecordedExchange): boolean {
  const source = exchange.source;
  if (!source) return false;
  return Object.keys(DELIBERATE_SOURCES).some((prefix) => (prefix.endsWith('/') ? source.startsWith(prefix) : source === prefix));
}
