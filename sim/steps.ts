/**
 * The demo's script: what it does to the simulators and the queue, and when. Some steps run at a
 * fixed time; the pool's steps wait for the story to get there (the pool full, the scale-in over),
 * so the story is told in order however slowly a loaded machine runs it.
 */
import type { Status } from '../src/status/status.js';
import type { PoolStatus } from '../src/status/pool-status.js';

export type DemoStep =
  | { kind: 'at'; ms: number; what: string; act: () => Promise<unknown> | void }
  /** Runs once `seen` holds of a status reading, no sooner than `notBeforeMs` after the start, after the `when` steps before it. */
  | { kind: 'when'; notBeforeMs: number; seen: (s: Status) => boolean; what: string; act: () => Promise<unknown> | void };

export interface DemoActions {
  /** Sets `protectFromScaleIn` on a VM of the workers scale set (by instance id). */
  protect(instanceId: string): void;
  /** The next VM the scale set creates fails provisioning. */
  failNextCreation(): void;
  /** Pushes a load to a target, as `drover enqueue --load` does. */
  load(target: string, load: number): Promise<unknown>;
}

const workers = (s: Status): PoolStatus | undefined => s.pools.find((p) => p.name === 'workers');

/**
 * The pool holds `count` healthy VMs and `warm` parked ones, with nothing on its way in or out:
 * neither in the scale set nor in the inventory (a deleted VM's row is gone too), so the story's
 * next step comes after the line that says so, however slow the machine.
 */
export function settledAt(pool: PoolStatus | undefined, count: number, warm = 0): boolean {
  if (!pool) return false;
  const c = pool.counts;
  const inView = pool.instances.length === count + warm && pool.machines.length === count + warm;
  return inView && c.healthy === count && c.warm === warm && c.creating === 0 && c.deleting === 0 && c.broken === 0 && c.missing === 0;
}

export function demoSteps(act: DemoActions): DemoStep[] {
  return [
    {
      kind: 'at',
      ms: 1_000,
      what: 'a long job runs on vmss-workers/1: it protects its VM from scale-in (protectFromScaleIn)',
      act: () => act.protect('1'),
    },
    {
      kind: 'at',
      ms: 3_000,
      what: 'load 55 arrives for jobs (10 per VM): the pool workers should grow to 6, 2 VMs at a time',
      act: () => act.load('jobs', 55),
    },
    { kind: 'at', ms: 8_000, what: 'load 25 arrives for web (10 per replica): it should scale to 3', act: () => act.load('web', 25) },
    { kind: 'at', ms: 40_000, what: 'load drops to 0: web goes to 1, then to 0 behind the activator', act: () => act.load('web', 0) },
    {
      kind: 'when',
      notBeforeMs: 3_000,
      seen: (s) => settledAt(workers(s), 6),
      what: 'load for jobs drops to 5: workers should go down to 1 VM, the newest first, parking 2 (warm.max) and sparing the protected vmss-workers/1',
      act: () => act.load('jobs', 5),
    },
    {
      kind: 'when',
      notBeforeMs: 3_000,
      seen: (s) => workers(s)?.wanted === 1 && settledAt(workers(s), 1, 2),
      what: 'load for jobs rises to 15: workers should wake one parked VM (a start, not a creation)',
      act: () => act.load('jobs', 15),
    },
    {
      kind: 'when',
      notBeforeMs: 3_000,
      seen: (s) => workers(s)?.wanted === 2 && settledAt(workers(s), 2, 1),
      what: 'load for jobs rises to 35, and the next VM the scale set creates will fail provisioning (out of capacity)',
      act: () => {
        act.failNextCreation();
        return act.load('jobs', 35);
      },
    },
  ];
}
