import type { Log } from '../log.js';
import type { LeaseGuard } from '../state/leases.js';
import type { Runtime } from '../runtime/runtime.js';

export type ObjectKind = 'pool' | 'target';

export interface ObjectRef {
  kind: ObjectKind;
  name: string;
}

export const objectKey = (ref: ObjectRef) => `${ref.kind}/${ref.name}`;

import type { Decision } from '../decision.js';

export type { Decision };

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
  /** Another host's pass already took this object for the same timer occurrence. */
  | { ref: ObjectRef; status: 'claimed'; by: string; occurrence: number }
  | { ref: ObjectRef; status: 'unknown' }
  | { ref: ObjectRef; status: 'failed'; error: string; decision?: Decision }
  /** Cut short by its pass's deadline or the host's shutdown; another reconcile must finish it. */
  | { ref: ObjectRef; status: 'aborted'; reason: string };
