/**
 * What `drover replay` prints of a Pool target's pool: its summary (VM-minutes, VMs created,
 * started, parked and deleted, the calls) and its timeline, the wanted count against the ready
 * VMs, a line whenever either or the VMs on their way changed; and the same as JSON. Written in
 * chunks, so a week-long timeline never becomes one string.
 */
import type { PoolReplayResult, PoolReplaySummary, PoolTimelineRow } from './pool-replay.js';

/** A run as report.ts has it (named here by shape: report.ts imports this module). */
interface Run {
  config: string;
  targets: readonly { name: string; pool?: PoolReplayResult }[];
}

const LINES_PER_CHUNK = 1_000;
const COLUMNS = [
  { title: 'wanted', value: (r: PoolTimelineRow) => (r.wanted === undefined ? '-' : String(r.wanted)) },
  { title: 'ready', value: (r: PoolTimelineRow) => String(r.ready) },
  { title: 'creating', value: (r: PoolTimelineRow) => String(r.creating) },
  { title: 'parked', value: (r: PoolTimelineRow) => String(r.parked) },
  { title: 'capacity', value: (r: PoolTimelineRow) => String(r.capacity) },
];
const TIME_WIDTH = 24;

export function poolSummaryLine(s: PoolReplaySummary): string {
  return [
    `${s.vmMinutes.toFixed(1)} VM-minutes (${s.parkedMinutes.toFixed(1)} parked)`,
    `peak ${s.peakVms} VMs`,
    `${s.vmsCreated} created in ${s.capacityWrites} capacity raise(s)`,
    `${s.vmsStarted} started, ${s.vmsParked} parked`,
    `${s.vmsScaledIn} deleted by scale-in in ${s.deleteCalls} call(s)`,
    `${s.passes} pool passes (${s.rateLimitedPasses} turned away by its reconcileRate)`,
  ].join(', ');
}

/** Each Pool target's pool, after the targets' own timelines; under `--compare`, each configuration's in turn. */
export function* renderPoolTimelines(main: Run, compare?: Run): Generator<string> {
  for (const run of compare ? [main, compare] : [main]) {
    for (const target of run.targets) {
      if (!target.pool) continue;
      const of = compare ? ` under ${run.config}` : '';
      yield `pool ${target.pool.name}${of}, sized by target ${target.name}: ${poolSummaryLine(target.pool.summary)}\n`;
      yield* poolTimelineText(target.pool);
    }
  }
}

function* poolTimelineText(pool: PoolReplayResult): Generator<string> {
  yield `${['time'.padEnd(TIME_WIDTH), ...COLUMNS.map((c) => c.title)].join('  ')}\n`;
  let chunk: string[] = [];
  for (const row of pool.timeline) {
    chunk.push(`${[new Date(row.at).toISOString().padEnd(TIME_WIDTH), ...COLUMNS.map((c) => c.value(row).padStart(c.title.length))].join('  ')}\n`);
    if (chunk.length === LINES_PER_CHUNK) {
      yield chunk.join('');
      chunk = [];
    }
  }
  yield `${chunk.join('')}\n`;
}

/** `"pool": { "name", "summary", "timeline": [...] }` for a target's JSON, or nothing. */
export function* poolJson(pool: PoolReplayResult | undefined, indent: string): Generator<string> {
  if (!pool) return;
  const s = pool.summary;
  const summary = { ...s, vmMinutes: round3(s.vmMinutes), parkedMinutes: round3(s.parkedMinutes) };
  yield `,\n${indent}    "pool": { "name": ${JSON.stringify(pool.name)}, "summary": ${JSON.stringify(summary)}, "timeline": [`;
  let chunk: string[] = [];
  for (const [i, r] of pool.timeline.entries()) {
    chunk.push(`${i ? ',' : ''}\n${indent}      ${JSON.stringify({ at: new Date(r.at).toISOString(), wanted: r.wanted ?? null, ready: r.ready, creating: r.creating, parked: r.parked, capacity: r.capacity })}`);
    if (chunk.length === LINES_PER_CHUNK) {
      yield chunk.join('');
      chunk = [];
    }
  }
  yield `${chunk.join('')}\n${indent}    ] }`;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
