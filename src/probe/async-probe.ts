/**
 * Asynchronous activator probing on the probe queue, with its state in the `probes` table so
 * every Functions instance sees the same picture: an offer for a target whose probe is in
 * flight is recognised and ignored; each message is one attempt that either finishes the
 * probe (success, or the deadline passed) or sends the next attempt after the probe period.
 * Either end asks for a reconcile of the target a second later.
 */
import type { TargetConfig } from '../config/schema.js';
import type { Log } from '../log.js';
import type { ProbeMessage } from '../queue/messages.js';
import type { Runtime } from '../runtime/runtime.js';

/** Delay before the reconcile that follows a finished probe (the seed's re-enqueue period). */
export const AFTER_PROBE_REQUEUE_MS = 1_000;

export type ProbeProps = {
  inFlight: boolean;
  startedAt: number;
  deadline: number;
  /** Attempts made so far in this probe; a message for an older attempt is a redelivery. */
  attempts: number;
  lastResult: string;
  finishedAt?: number;
};

export type ProbeFn = (url: string, signal?: AbortSignal) => Promise<{ ok: boolean; error?: string }>;

const ROW = 'probe';

export async function readProbe(rt: Runtime, target: string) {
  return (await rt.table('probes').get<ProbeProps>(target, ROW))?.props;
}

/**
 * Starts an async probe unless one is already in flight. Returns false for "already in
 * flight", which the caller only logs.
 */
export async function offerProbe(rt: Runtime, target: TargetConfig): Promise<boolean> {
  const activator = target.activator;
  if (!activator) return false;
  const now = rt.clock.now();
  let started: ProbeProps | undefined;
  await rt.table('probes').update<ProbeProps>(target.name, ROW, (row) => {
    if (row?.props.inFlight && row.props.deadline > now) {
      started = undefined;
      return undefined;
    }
    started = { inFlight: true, startedAt: now, deadline: now + activator.probeTimeout, attempts: 0, lastResult: 'pending' };
    return started;
  });
  if (!started) return false;
  await rt.queues.probe({ target: target.name, attempt: 0, deadline: started.deadline });
  return true;
}

export type AttemptOutcome = 'succeeded' | 'timed out' | 'retrying' | 'stale' | 'unknown target';

/** Handles one probe message: one attempt, then the next message or the end of the probe. */
export async function runProbeAttempt(rt: Runtime, message: ProbeMessage, probe: ProbeFn, log: Log): Promise<AttemptOutcome> {
  const target = rt.config.targets.find((t) => t.name === message.target);
  if (!target?.activator) {
    log.warn(`probe for ${message.target}: no such target with an activator in the configuration, dropping`);
    return 'unknown target';
  }
  const state = await readProbe(rt, target.name);
  if (!state?.inFlight || state.deadline !== message.deadline || state.attempts > message.attempt) {
    log.info(`probe for ${target.name}: attempt ${message.attempt} is stale or already done, dropping`);
    return 'stale';
  }

  const result = await probe(target.activator.probeUrl);
  const now = rt.clock.now();
  const nextAttemptAt = now + target.activator.probePeriod;
  const finished = result.ok || nextAttemptAt > message.deadline;

  // Send before recording: a crash in between re-runs this attempt, and the duplicate chain
  // dies at the attempts check above; recording first could lose the chain altogether.
  if (finished) {
    await rt.queues.reconcile({ kind: 'target', name: target.name, reason: result.ok ? 'activator probe succeeded' : 'activator probe timed out' }, AFTER_PROBE_REQUEUE_MS);
  } else {
    await rt.queues.probe({ ...message, attempt: message.attempt + 1 }, target.activator.probePeriod);
  }
  await rt.table('probes').update<ProbeProps>(target.name, ROW, (row) => {
    if (!row || row.props.attempts !== message.attempt || row.props.deadline !== message.deadline) return undefined;
    return {
      ...row.props,
      attempts: message.attempt + 1,
      lastResult: result.ok ? 'activator' : (result.error ?? 'failed'),
      ...(finished ? { inFlight: false, finishedAt: now } : {}),
    };
  });
  const outcome: AttemptOutcome = result.ok ? 'succeeded' : finished ? 'timed out' : 'retrying';
  log.info(`probe for ${target.name}: attempt ${message.attempt} ${outcome}${result.error ? ` (${result.error})` : ''}`);
  return outcome;
}
