/** The soak's faults in front of a simulator: bursts of 500 answers, and silence for a while. */
import { startProxy } from '../sim/fault-proxy.js';

export interface FaultProxy {
  url: string;
  caPem: string | undefined;
  /** The next `n` requests are answered 500. */
  fail(n: number): void;
  /** Requests are held unanswered until `ms` from now. */
  silence(ms: number): void;
  readonly counts: { failed: number; held: number; forwarded: number };
  close(): Promise<void>;
}

export async function startFaultProxy(upstream: string, upstreamCa?: string): Promise<FaultProxy> {
  const counts = { failed: 0, held: 0, forwarded: 0 };
  let failures = 0;
  let silentUntil = 0;
  const proxy = await startProxy(upstream, () => {
    if (Date.now() < silentUntil) {
      counts.held++;
      return { kind: 'hold' };
    }
    if (failures > 0) {
      failures--;
      counts.failed++;
      return { kind: 'answer', status: 500, body: { error: { code: 'InternalServerError', message: 'injected by the soak' } } };
    }
    counts.forwarded++;
    return { kind: 'forward' };
  }, upstreamCa === undefined ? {} : { upstreamCa });
  return {
    url: proxy.url,
    caPem: proxy.caPem,
    fail: (n) => (failures += n),
    silence: (ms) => (silentUntil = Date.now() + ms),
    counts,
    close: () => proxy.close(),
  };
}
