import type { ForecastLine } from '../state/decisions.js';
import type { HistoryObservation } from '../state/history.js';

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
  /** The rule that bound a target's decision (src/scaler/read/bound-rules.ts). */
  boundBy?: string;
  /**
   * What the adaptive policy's forecast made of a target's decision, when its mode is not off:
   * its floor, and whether that is above the policy's own count (src/scaler/recommend/forecast-stage.ts).
   */
  forecast?: ForecastLine;
  /** What the reconcile saw of its object, for the `history` table; not part of the decision log. */
  observed?: HistoryObservation;
}
