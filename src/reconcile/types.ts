import type { Log } from '../log.js';
import type { LeaseGuard } from '../state/leases.js';
import type { Runtime } from '../runtime/runtime.js';
import type { HistoryObservation } from '../state/history.js';

export type ObjectKind = 'pool' | 'target';

export interface ObjectRef {
  kind: ObjectKind;
  name: string;
}

export const objectKey = (ref: ObjectRef) => `${ref.kind}/${ref.name}`;

/** What one reconcile of one object decided, for the decision log and the caller. */
export interface Decision {
  /** A short verb phrase: "scaled 3 → 1", "safety switch", "nothing to do". */
  decision: string;
  /** Why, in words an operator can act on. */
  reason: string;
  /** Set when the reconcile failed or refused; the pass then reports errors (exit code 1). */
  error?: string;
  /** The failure may pass by itself (ARM down, a conflict), as `isTransient` decides: a queued reconcile is retried. */
  transient?: boolean;
  /** What the reconcile saw of its object, for the `history` table; not part of the decision log. */
  observed?: HistoryObservation;
}

export interface ReconcileRequest {
  /** Why this reconcile runs: "timer", "forced", "requeue", "probe finished"… */
  reason: string;
  /** A pushed load value that came with a reconcile message. */
  load?: number;
  /** `--dry-run`: decide and report, write nothing to ARM, Kubernetes or the inventory. */
  dryRun?: boolean;
}

export interface ReconcileContext extends ReconcileRequest {
  rt: Runtime;
  ref: ObjectRef;
  /** The object's lease; call `check()` before every write. A dry run holds none (it writes nothing). */
  lease: Pick<LeaseGuard, 'check' | 'remainingMs'>;
  log: Log;
  signal: AbortSignal;
}

export type ObjectOutcome =
  | { ref: ObjectRef; status: 'done'; decision: Decision }
  | { ref: ObjectRef; status: 'busy'; heldBy: string; until: number }
  | { ref: ObjectRef; status: 'unknown' }
  | { ref: ObjectRef; status: 'failed'; error: string; decision?: Decision };
