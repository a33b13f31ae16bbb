/**
 * A stand-in for the activator's probe endpoint: answers 200 `activator` while present, and
 * something a real probe must reject otherwise. Tests and `drover sim` switch it on and off to
 * play the activator entering or leaving the path in front of a target.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * - present: 200 `activator`
 * - absent: 503, as a service with no activator endpoints behind it
 * - hang: never answers (until the server closes)
 * - reset: drops the connection without an answer
 * - { status, body }: any other answer, e.g. 200 with a wrong body
 */
export type ActivatorBehaviour = 'present' | 'absent' | 'hang' | 'reset' | { status: number; body: string };

export interface ActivatorSimOptions {
  behaviour?: ActivatorBehaviour;
  /** Path of the probe endpoint; default `/healthz`. */
  path?: string;
}

export interface ActivatorSim {
  /** Full probe URL, e.g. http://127.0.0.1:PORT/healthz. */
  readonly probeUrl: string;
  behaviour: ActivatorBehaviour;
  /** Shorthand for behaviour 'present' / 'absent'. */
  setPresent(present: boolean): void;
  /** Requests received on the probe path. */
  readonly probes: number;
  /** Headers of each probe, oldest first. */
  readonly seenHeaders: readonly IncomingHttpHeaders[];
  reset(): void;
  close(): Promise<void>;
}

const ABSENT = { status: 503, body: 'no activator endpoints' };

export async function startActivatorSim(options: ActivatorSimOptions = {}): Promise<ActivatorSim> {
  const path = options.path ?? '/healthz';
  let behaviour: ActivatorBehaviour = options.behaviour ?? 'present';
  const seenHeaders: IncomingHttpHeaders[] = [];

  const server = http.createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://sim').pathname !== path) {
      res.writeHead(404).end('not found');
      return;
    }
    seenHeaders.push({ ...req.headers });
    if (behaviour === 'hang') return;
    if (behaviour === 'reset') {
      req.socket.destroy();
      return;
    }
    const answer = behaviour === 'present' ? { status: 200, body: 'activator' } : behaviour === 'absent' ? ABSENT : behaviour;
    res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body);
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    probeUrl: `http://127.0.0.1:${port}${path}`,
    get behaviour() {
      return behaviour;
    },
    set behaviour(next) {
      behaviour = next;
    },
    setPresent(present) {
      behaviour = present ? 'present' : 'absent';
    },
    get probes() {
      return seenHeaders.length;
    },
    seenHeaders,
    reset() {
      seenHeaders.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
