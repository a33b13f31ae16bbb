/**
 * The executor of a target's plan: the only part of the scale step that does I/O, through
 * ports. It carries out the synchronous activator probe when the plan asks for one, then the
 * plan's write (after the lease check and after saving what must survive it), then, for a
 * write that wakes the target from zero, the watch for its first ready replica. The reconcile
 * passes the real target, probe and lease; a table or a replay passes in-memory ones.
 */
import { isTransient } from '../../errors/transient.js';
import { errorMessage } from '../../log.js';
import type { TargetSettings } from '../decide/decide-target.js';
import type { TargetUnread, WriteResult } from '../decide/follow-ups.js';
import type { TargetRecordPatch } from '../read/target-record.js';
import { planTarget, type ProbeResult, type TargetPlan, type TargetSnapshot } from '../decide/plan-target.js';
import { isTargetMissing, type ObservedTarget, type TargetPort } from '../read/target-port.js';

export interface TargetExecutorPorts {
  target: Pick<TargetPort, 'kind' | 'write'>;
  /** One synchronous activator probe; reports failure as `{ ok: false }` rather than throwing. */
  probeActivator(): Promise<ProbeResult>;
  /** The lease check that must precede every write (a reconcile also confirms there that its row is unchanged). */
  checkLease(): Promise<void>;
  /** Saves what must survive the write (the start of a wake); after the lease check, before the write. */
  beforeWrite?(patch: TargetRecordPatch): Promise<void>;
  /** After the write that wakes a target from zero: its ready replicas, watched for a while. */
  watchReadiness?(): Promise<{ ready: number; at: number } | undefined>;
  signal?: AbortSignal;
}

export interface Executed {
  write: WriteResult | TargetUnread;
  /** What the watch after a waking write saw last; undefined when nothing was watched. */
  watched?: { ready: number; at: number };
  /** The write woke the target from zero (and so was watched, when a watch is wired). */
  waking: boolean;
}

/** planTarget with its synchronous probe carried out, only when the plan asks for it. */
export async function planWithProbe(
  snapshot: TargetSnapshot,
  settings: TargetSettings,
  now: number,
  probeActivator: () => Promise<ProbeResult>,
): Promise<{ plan: TargetPlan; probe?: ProbeResult }> {
  const first = planTarget(snapshot, settings, now);
  if (first.kind === 'plan') return { plan: first };
  const probe = await probeActivator();
  const second = planTarget({ ...snapshot, probe }, settings, now);
  if (second.kind === 'probe') throw new Error('the scale decision asked for a second probe');
  return { plan: second, probe };
}

export async function executeTargetPlan(plan: TargetPlan, observed: ObservedTarget, ports: TargetExecutorPorts): Promise<Executed> {
  const intent = plan.write;
  if (intent.kind !== 'write') return { write: intent, waking: false };
  const { from, to } = intent;
  await ports.checkLease();
  if (intent.save && ports.beforeWrite) await ports.beforeWrite(intent.save);
  let write: WriteResult;
  try {
    const note = await ports.target.write(to, observed, ports.signal);
    write = { kind: 'written', from, to, ...(note ? { note } : {}) };
  } catch (error) {
    if (isTargetMissing(error)) return { write: { kind: 'missing', error }, waking: false };
    write = { kind: 'failed', from, to, error: errorMessage(error), transient: isTransient(error) };
  }
  // The reconcile that wakes a target watches for its first ready replica, to time the wake.
  const waking = write.kind === 'written' && intent.wakes;
  const watched = waking && ports.watchReadiness ? await ports.watchReadiness() : undefined;
  return { write, waking, ...(watched ? { watched } : {}) };
}
