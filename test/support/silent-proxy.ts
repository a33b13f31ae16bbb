// A proxy in front of a simulator that forwards every request except those `silent` picks:
// it accepts those and never answers, as a hung endpoint does.
import type http from 'node:http';
import { startProxy, type Proxy, type ProxyOptions } from '../../sim/fault-proxy.js';

export interface SilentProxy extends Proxy {
  /** Requests held without an answer so far. */
  held(): number;
}

export async function silentProxy(
  upstream: string,
  silent: (req: http.IncomingMessage) => boolean,
  options: Pick<ProxyOptions, 'upstreamCa' | 'service'> = {},
): Promise<SilentProxy> {
  let held = 0;
  const proxy = await startProxy(
    upstream,
    (req) => {
      if (!silent(req)) return { kind: 'forward' };
      held++;
      return { kind: 'hold' };
    },
    options,
  );
  return { ...proxy, held: () => held };
}
