/**
 * Reference lines, not incumbents: a static fleet (the scored window's peak or p95 demand), and
 * foresight, whose supply is the highest demand over [t, t + start-up delay] (it knows the
 * future and starts units exactly early enough).
 */
import type { FleetStep } from './metrics.js';
import { linearPercentile, MINUTE_MS } from './traces.js';

export function staticFleet(units: number, startMs: number): FleetStep[] {
  return [{ at: startMs, supply: units, billed: units }];
}

/** ⌈p-th percentile⌉ of the demand (p = 1: its peak). */
export function staticSize(demand: readonly number[], p: number): number {
  return p >= 1 ? Math.max(...demand) : Math.ceil(linearPercentile(demand, p));
}

/** s(t) = max d over [t, t + delayMs], d per minute from `startMs`; it changes only at minute starts and delayMs before them. */
export function foresight(demand: readonly number[], startMs: number, delayMs: number): FleetStep[] {
  const end = demand.length * MINUTE_MS;
  const times = new Set<number>();
  for (let k = 0; k < demand.length; k++) {
    times.add(k * MINUTE_MS);
    if (k * MINUTE_MS - delayMs > 0) times.add(k * MINUTE_MS - delayMs);
  }
  const steps: FleetStep[] = [];
  for (const t of [...times].sort((a, b) => a - b)) {
    if (t >= end) continue;
    const last = Math.min(demand.length - 1, Math.floor((t + delayMs) / MINUTE_MS));
    let s = 0;
    for (let k = Math.floor(t / MINUTE_MS); k <= last; k++) s = Math.max(s, demand[k]!);
    if (steps.at(-1)?.supply !== s) steps.push({ at: startMs + t, supply: s, billed: s });
  }
  return steps;
}
