import type { InvocationContext, Timer } from '@azure/functions';
import { errorMessage, invocationLog, type Log } from '../log.js';
import { shortHash } from '../config/sequence.js';
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
  const report = await runPass(rt, { log, reason: 'timer', signal: rt.shutdown.signal, occurrence });
  await warnIfOutrankedAtSameSequence(rt, log);
  return report;
}

/**
 * Two different configurations with one sequence (two local hosts whose files were written in
 * the same millisecond): the one with the higher hash wins every object and this one writes
 * nothing to them (src/job/config-stamp.ts). Said once a pass, as a warning: unlike a
 * rolling deploy, nothing ends it until one of them is given a newer sequence.
 */
async function warnIfOutrankedAtSameSequence(rt: Runtime, log: Log): Promise<void> {
  const { seq, hash, newest } = rt.configuration;
  const winner = await newest.newerLive().catch((err: unknown) => void log.warn(`configuration: could not read the newest configuration: ${errorMessage(err)}`));
  if (winner?.seq !== seq) return;
  log.warn(
    `configuration: objects are left to configuration ${shortHash(winner.hash)} (same sequence ${seq}); this host runs configuration ${shortHash(hash)} and writes nothing to them. Give the configuration meant to run a newer sequence (redeploy it, or touch its file), or stop this host`,
  );
}
