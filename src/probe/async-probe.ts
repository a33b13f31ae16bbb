/**
 * Asynchronous activator probing on the probe queue, with its state in the `probes` table so
 * every Functions instance sees the same picture: an offer for a target whose probe is in
 * flight is recognised and ignored; each message is one attempt that either finishes the
 * probe (success, or the deadline passed) or sends the next attempt after the probe period.
 * Either end asks for a reconcile of the target a second later.
 *
 * Deliveries are at least once. An attempt is claimed in the row (ETag) before it probes, so
 * a duplicate delivered at the same time backs off; one delivered after the attempt was
 * recorded is stale. A claim expires, so the redelivery of an attempt whose invocation died
 * takes over. Whether the activator answered is written to the target's row: the time it was
 * first seen in front stands in for the seed's "SKS in proxy mode for".
 */
import { randomUUID } from 'node:crypto';
import type { TargetConfig } from '../config/schema.js';
import type { Log } from '../log.js';
import type { ProbeMessage } from '../queue/messages.js';
import type { Clock } from '../clock.js';
import type { QueueSender } from '../queue/sender.js';
import type { EntityTable } from '../state/entity-table.js';
import { mergeTargetRecord } from '../scaler/read/target-store.js';

/** What the async probe uses, built once by the composition root (`Runtime.stores.probe`). */
export interface ProbeStores {
  /** The `probes` table: one row per target with a probe. */
  readonly probes: EntityTable;
  /** The `targets` table, where a probe records whether the activator answered. */
  readonly targetRows: EntityTable;
  readonly queues: Pick<QueueSender, 'probe' | 'reconcile'>;
  readonly clock: Clock;
  /** The configured targets, to find the activator a probe message names. */
  readonly targets: readonly TargetConfig[];
}

/** Delay before the reconcile that follows a finished probe (the seed's re-enqueue period). */
export const AFTER_PROBE_REQUEUE_MS = 1_000;

/** How long a claimed attempt is left to its claimant: a probe request takes at most seconds. */
export const ATTEMPT_CLAIM_MS = 15_000;

export type ProbeProps = {
  inFlight: boolean;
  startedAt: number;
  deadline: number;
  /** Attempts made so far in this probe; a message for an older attempt is a redelivery. */
  attempts: number;
  lastResult: string;
  finishedAt?: number;
  /** The invocation running an attempt now, and until when its claim holds. */
  claim?: string;
  claimUntil?: number;
};

export type ProbeFn = (url: string) => Promise<{ ok: boolean; error?: string }>;

const ROW = 'probe';

export async function readProbe(stores: Pick<ProbeStores, 'probes'>, target: string) {
  return (await stores.probes.get<ProbeProps>(target, ROW))?.props;
}

/**
 * Starts an async probe unless one is already in flight. Returns false for "already in
 * flight", which the caller only logs.
 */
export async function offerProbe(stores: ProbeStores, target: TargetConfig): Promise<boolean> {
  const activator = target.activator;
  if (!activator) return false;
  const now = stores.clock.now();
  let started: ProbeProps | undefined;
  await stores.probes.update<ProbeProps>(target.name, ROW, (row) => {
    if (row?.props.inFlight && row.props.deadline > now) {
      started = undefined;
      return undefined;
    }
    started = { inFlight: true, startedAt: now, deadline: now + activator.probeTimeout, attempts: 0, lastResult: 'pending' };
    return started;
  });
  if (!started) return false;
  const offered = started;
  try {
    await stores.queues.probe({ target: target.name, attempt: 0, deadline: offered.deadline });
  } catch (err) {
    // No message, no probe: the row must not claim one is in flight until its deadline.
    await stores.probes.update<ProbeProps>(target.name, ROW, (row) =>
      row?.props.inFlight && row.props.startedAt === offered.startedAt ? { ...row.props, inFlight: false, lastResult: 'offer failed' } : undefined,
    );
    throw err;
  }
  return true;
}

export type AttemptOutcome = 'succeeded' | 'timed out' | 'retrying' | 'stale' | 'claimed elsewhere' | 'unknown target';

/** Handles one probe message: one attempt, then the next message or the end of the probe. */
export async function runProbeAttempt(stores: ProbeStores, message: ProbeMessage, probe: ProbeFn, log: Log): Promise<AttemptOutcome> {
  const target = stores.targets.find((t) => t.name === message.target);
  if (!target?.activator) {
    log.warn(`probe for ${message.target}: no such target with an activator in the configuration, dropping`);
    return 'unknown target';
  }
  const claim = await claimAttempt(stores, target.name, message);
  if (claim.kind !== 'claimed') {
    log.info(`probe for ${target.name}: attempt ${message.attempt} is ${claim.kind === 'stale' ? 'stale or already done' : 'being run by another invocation'}, dropping`);
    return claim.kind;
  }
  try {
    return await attempt(stores, target.name, target.activator, message, probe, claim.token, log);
  } catch (error) {
    // Let the retry of this message run the attempt instead of finding it claimed.
    await stores.probes.update<ProbeProps>(target.name, ROW, (row) =>
      row?.props.claim === claim.token ? { ...row.props, claim: undefined, claimUntil: undefined } : undefined,
    );
    throw error;
  }
}

type Claim = { kind: 'claimed'; token: string } | { kind: 'stale' } | { kind: 'claimed elsewhere' };

async function claimAttempt(stores: ProbeStores, target: string, message: ProbeMessage): Promise<Claim> {
  const token = randomUUID();
  const now = stores.clock.now();
  let claim = { kind: 'stale' } as Claim;
  await stores.probes.update<ProbeProps>(target, ROW, (row) => {
    const p = row?.props;
    if (!p?.inFlight || p.deadline !== message.deadline || p.attempts > message.attempt) {
      claim = { kind: 'stale' };
      return undefined;
    }
    if (p.claim !== undefined && (p.claimUntil ?? 0) > now) {
      claim = { kind: 'claimed elsewhere' };
      return undefined;
    }
    claim = { kind: 'claimed', token };
    // A message ahead of the count follows an attempt that sent it and died before recording.
    return { ...p, attempts: message.attempt, claim: token, claimUntil: now + ATTEMPT_CLAIM_MS };
  });
  return claim;
}

type Activator = NonNullable<TargetConfig['activator']>;

async function attempt(stores: ProbeStores, name: string, activator: Activator, message: ProbeMessage, probe: ProbeFn, token: string, log: Log): Promise<AttemptOutcome> {
  const result = await probe(activator.probeUrl);
  const now = stores.clock.now();
  const finished = result.ok || now + activator.probePeriod > message.deadline;

  // Send before recording: a crash in between leaves the claim to expire and the redelivered
  // attempt to run again; the duplicate chain it starts dies at the stale check.
  if (finished) {
    const reason = result.ok ? 'activator probe succeeded' : 'activator probe timed out';
    await stores.queues.reconcile({ kind: 'target', name, reason }, AFTER_PROBE_REQUEUE_MS);
  } else {
    await stores.queues.probe({ ...message, attempt: message.attempt + 1 }, activator.probePeriod);
  }
  await mergeTargetRecord(stores.targetRows, name, (current) => {
    if (!result.ok) return current?.activatorSeenSince === undefined ? undefined : { activatorSeenSince: undefined };
    return current?.activatorSeenSince === undefined ? { activatorSeenSince: now } : undefined;
  });
  await stores.probes.update<ProbeProps>(name, ROW, (row) => {
    if (row?.props.claim !== token) return undefined;
    return {
      ...row.props,
      attempts: message.attempt + 1,
      lastResult: result.ok ? 'activator' : (result.error ?? 'failed'),
      claim: undefined,
      claimUntil: undefined,
      ...(finished ? { inFlight: false, finishedAt: now } : {}),
    };
  });
  const outcome: AttemptOutcome = result.ok ? 'succeeded' : finished ? 'timed out' : 'retrying';
  log.info(`probe for ${name}: attempt ${message.attempt} ${outcome}${result.error ? ` (${result.error})` : ''}`);
  return outcome;
}
