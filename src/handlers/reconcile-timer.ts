import type { InvocationContext, Timer } from '@azure/functions';
import { invocationLog } from '../log.js';
import { runPass, type PassReport } from '../reconcile/pass.js';
import type { Runtime } from '../runtime/runtime.js';
import { DEFAULT_SCHEDULE } from '../host/default-schedule.js';
import { timerOccurrence } from '../reconcile/timer-occurrence.js';
import { announceConfiguration } from './reconcile-queue.js';

/** The timer's pass over every pool and target. */
export async function onReconcileTimer(rt: Runtime, timer: Timer, context: InvocationContext): Promise<PassReport> {
  const log = invocationLog(context);
  if (timer.isPastDue) log.warn('reconcileTimer is running late (past due)');
  await announceConfiguration(rt, log);
  // Hosts whose timers all fire (two local hosts; Azure's singleton timer lock makes this rare)
  // share the occurrence's objects between them instead of each reconciling all of them.
  const occurrence = await timerOccurrence(timer, rt.env.DROVER_SCHEDULE ?? DEFAULT_SCHEDULE, rt.clock.now());
  return runPass(rt, { log, reason: 'timer', signal: rt.shutdown.signal, occurrence });
}
