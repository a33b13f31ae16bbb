/**
 * The layers of src/, top to bottom: a file may import from its own layer and the layers below
 * it, never from one above, but for the exceptions listed here with why. docs/architecture.md
 * opens with the same layers as a map of src/'s folders (test/structure/map.test.ts keeps the
 * two alike). Inside the scaler, the stages one decision goes through are layers of their own.
 */

export interface Layer {
  name: string;
  /** Folders (ending in `/`) and top-level files of src/. */
  paths: readonly string[];
}

export const LAYERS: readonly Layer[] = [
  { name: 'entry points and the composition root', paths: ['src/cli.ts', 'src/cli/', 'src/host/', 'src/handlers/', 'src/runtime/'] },
  { name: 'tools and views over the jobs', paths: ['src/replay/', 'src/status/'] },
  { name: 'the pass over every object', paths: ['src/reconcile/'] },
  { name: 'the jobs', paths: ['src/scaler/', 'src/pool/', 'src/probe/', 'src/cache/'] },
  { name: 'what every job shares', paths: ['src/job/'] },
  { name: 'mechanisms', paths: ['src/load/', 'src/queue/', 'src/state/', 'src/azure/', 'src/kubernetes/', 'src/metrics/', 'src/errors/', 'src/http/'] },
  { name: 'foundations', paths: ['src/config/', 'src/text/', 'src/clock.ts', 'src/log.ts', 'src/deadline.ts', 'src/limits.ts', 'src/redact.ts', 'src/package-root.ts'] },
];

/** The scaler's stages, in the order one decision takes them. */
export const SCALER_STAGES: readonly string[] = ['read', 'recommend', 'limit', 'zero', 'decide', 'settle', 'write'].map((stage) => `src/scaler/${stage}/`);

export interface Exception {
  /** The importing file, or a folder ending in `/`. */
  from: string;
  /** The imported file, or a folder ending in `/`. */
  to: string;
  why: string;
}

/** The imports that go up a layer, each for a reason. */
export const EXCEPTIONS: readonly Exception[] = [
  {
    from: 'src/config/',
    to: 'src/load/',
    why: "a load source kind is one module behind one registry line: the configuration's schema asks the registry (load/registry.ts) for each kind's own keys",
  },
  {
    from: 'src/config/policy-schema.ts',
    to: 'src/scaler/recommend/formula.ts',
    why: 'a combine formula is parsed as the configuration loads, so a bad one is a configuration error naming its path',
  },
  { from: 'src/config/schema.ts', to: 'src/kubernetes/scale-target-ref.ts', why: "a Kubernetes scaleTargetRef's shape and kinds are checked as the configuration loads" },
  { from: 'src/errors/transient.ts', to: 'src/cache/', why: "the one place that says which errors are worth another try knows every adapter's, the instance cache's listing refusals included" },
  { from: 'src/state/leases.ts', to: 'src/reconcile/occurrence-claims.ts', why: "an object's lease row carries the claim for the timer occurrence its pass runs for" },
  { from: 'src/reconcile/timer-occurrence.ts', to: 'src/host/schedule.ts', why: "the timer occurrence is read off the NCRONTAB schedule the host's timer runs on" },
  { from: 'src/replay/schedule.ts', to: 'src/host/schedule.ts', why: "the replay's timers run on the host's NCRONTAB schedule" },
  { from: 'src/replay/cli-register.ts', to: 'src/cli/', why: '`drover replay` is declared on the command line from here, so that the verb loads only when it runs' },
  { from: 'src/replay/cli-verb.ts', to: 'src/cli/', why: "`drover replay`'s wiring: the CLI's usage errors and output" },
  { from: 'src/replay/cli-verb.ts', to: 'src/runtime/', why: "`drover replay --from-history`'s wiring builds the runtime to reach the history table" },
  { from: 'src/scaler/read/policy-settings.ts', to: 'src/scaler/', why: "a target's settings gather each stage's own knobs (their types and defaults) from its configuration" },
  { from: 'src/scaler/read/target-settings.ts', to: 'src/scaler/', why: "a target's settings gather each stage's own knobs (their types and defaults) from its configuration" },
  { from: 'src/scaler/read/adaptive-settings.ts', to: 'src/scaler/recommend/adaptive.ts', why: "the adaptive policy's knobs, gathered with the target's settings" },
];

const covers = (entry: string, file: string) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry);

/** The index of the entry a file falls under (the longest one), or undefined. */
function rankOf(file: string, ranks: readonly (readonly string[])[]): number | undefined {
  let best: { rank: number; length: number } | undefined;
  ranks.forEach((paths, rank) => {
    for (const p of paths) if (covers(p, file) && (!best || p.length > best.length)) best = { rank, length: p.length };
  });
  return best?.rank;
}

/** Each import that goes from a layer up to a higher one (or from a stage to a later one) and is not an exception; and each file in no layer. */
export function layerViolations(graph: ReadonlyMap<string, readonly string[]>, layers: readonly Layer[] = LAYERS, stages: readonly string[] = SCALER_STAGES, exceptions: readonly Exception[] = EXCEPTIONS): string[] {
  const layerRanks = layers.map((l) => l.paths);
  const stageRanks = stages.map((s) => [s]);
  const excused = (from: string, to: string) => exceptions.some((e) => covers(e.from, from) && covers(e.to, to));
  const found: string[] = [];
  for (const [file, imports] of graph) {
    if (!file.startsWith('src/')) continue;
    const mine = rankOf(file, layerRanks);
    if (mine === undefined) {
      found.push(`${file} is in no layer`);
      continue;
    }
    for (const imported of imports) {
      const theirs = rankOf(imported, layerRanks);
      if (theirs !== undefined && theirs < mine && !excused(file, imported)) found.push(`${file} → ${imported}: ${layers[mine]!.name} imports from ${layers[theirs]!.name}, a layer above`);
      const [myStage, theirStage] = [rankOf(file, stageRanks), rankOf(imported, stageRanks)];
      if (myStage !== undefined && theirStage !== undefined && theirStage > myStage && !excused(file, imported)) found.push(`${file} → ${imported}: the scaler's ${stages[myStage]} stage imports from a later stage`);
    }
  }
  return found;
}
