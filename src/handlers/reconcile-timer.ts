import type { InvocationContext, Timer } from '@azure/functions';
import { invocationLog } from '../log.js';
import { runPass, type PassReport } from '../reconcile/pass.js';
import type { Runtime } from '../runtime/runtime.js';

/** The timer's pass over every pool and target. */
export async function onReconcileTimer(rt: Runtime, timer: Timer, context: InvocationContext): Promise<PassReport> {
  const log = invocationLog(context);
  if (timer.isPastDue) log.warn('reconcileTimer is running late (past due)');
  return runPass(rt, { log, reason: 'timer', signal: rt.shutdown.signal });
}
