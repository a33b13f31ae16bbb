/**
 * The synchronous activator probe: is the activator already in front of this target?
 *
 * Only an exact answer counts, 200 with the body `activator`: a target's own /healthz answers
 * 200 too, so a status alone would mistake the workload for the activator and let it be scaled
 * to zero with nothing in front to hold its requests. The body is checked before the status,
 * so a wrong answer is reported by what it said.
 */
import { abortReason } from '../clock.js';
import { isBodyTooLarge, readCappedText } from '../http/capped-body.js';

export const PROBE_USER_AGENT = 'Drover-Autoscaling-Probe';
export const PROBE_HEADER = 'K-Network-Probe';
export const ACTIVATOR_NAME = 'activator';
const DEFAULT_PROBE_TIMEOUT_MS = 1000;

export interface ActivatorProbeOptions {
  /** Whole request, body included; default DEFAULT_PROBE_TIMEOUT_MS. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export type ActivatorProbeResult = { ok: true } | { ok: false; error: string };

/** Never throws: every failure, including a timeout or an abort, is `{ ok: false, error }`. */
export async function probeActivator(
  probeUrl: string | undefined,
  options: ActivatorProbeOptions = {},
): Promise<ActivatorProbeResult> {
  // Without a URL there is no activator to find: not an error worth a request.
  if (!probeUrl) return { ok: false, error: 'no probeUrl configured' };
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const res = await fetch(probeUrl, {
      headers: { 'User-Agent': PROBE_USER_AGENT, [PROBE_HEADER]: ACTIVATOR_NAME },
      redirect: 'manual',
      signal,
    });
    const body = await readCappedText(res);
    if (body !== ACTIVATOR_NAME) {
      return { ok: false, error: `probe of ${probeUrl}: body ${JSON.stringify(clip(body))}, want "${ACTIVATOR_NAME}"` };
    }
    if (res.status !== 200) return { ok: false, error: `probe of ${probeUrl}: status ${res.status}, want 200` };
    return { ok: true };
  } catch (error) {
    if (isBodyTooLarge(error)) return { ok: false, error: `probe of ${probeUrl}: ${error.message}` };
    if (timeout.aborted) return { ok: false, error: `probe of ${probeUrl}: no answer within ${timeoutMs} ms` };
    if (signal.aborted) return { ok: false, error: `probe of ${probeUrl}: ${abortReason(signal).message}` };
    return { ok: false, error: `probe of ${probeUrl}: ${describe(error)}` };
  }
}

function clip(body: string): string {
  return body.length > 100 ? `${body.slice(0, 100)}…` : body;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // fetch reports "fetch failed" and puts the network error in `cause`.
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
