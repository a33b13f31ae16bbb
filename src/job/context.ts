import type { Log } from '../log.js';
import type { PassLease } from '../state/lease-on-write.js';

export type ObjectKind = 'pool' | 'target';

export interface ObjectRef {
  kind: ObjectKind;
  name: string;
}

export const objectKey = (ref: ObjectRef) => `${ref.kind}/${ref.name}`;

import type { Decision } from './decision.js';

export type { Decision };

export interface ReconcileRequest {
  /** Why this reconcile runs: "timer", "forced", "requeue", "probe finished"… */
  reason: string;
  /** `--dry-run`: decide and report, write nothing to ARM, Kubernetes or the inventory. */
  dryRun?: boolean;
}

/** One object's pass: `deps` are the parts of the composition root its job uses, scoped to the object (scope.ts). */
export interface ReconcileContext<Deps> extends ReconcileRequest {
  deps: Deps;
  ref: ObjectRef;
  /** The object's lease; call `check()` before every write (the first takes it). A dry run holds none (it writes nothing). */
  lease: PassLease;
  log: Log;
  signal: AbortSignal;
}

export type ObjectOutcome =
  /** `wrote`: the pass took the object's lease to write (a pass that found nothing to write takes none). */
  | { ref: ObjectRef; status: 'done'; decision: Decision; wrote: boolean }
  | { ref: ObjectRef; status: 'busy'; heldBy: string; until: number }
  /** Another host's pass already took this object for the same timer occurrence. */
  | { ref: ObjectRef; status: 'claimed'; by: string; occurrence: number }
  | { ref: ObjectRef; status: 'unknown' }
  | { ref: ObjectRef; status: 'failed'; error: string; decision?: Decision }
  /** Cut short by its pass's deadline or the host's shutdown; another reconcile must finish it. */
  | { ref: ObjectRef; status: 'aborted'; reason: string };
