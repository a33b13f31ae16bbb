/**
 * The local host: runs Drover's functions outside Azure (dev machines, containers, the demo),
 * calling the very handlers the Functions host registers, from the same registration table
 * (src/handlers/registrations.ts), with the runtime its caller built. The timer runs on
 * DROVER_SCHEDULE; the queues are polled with host.json's settings; the status endpoint is
 * served on 127.0.0.1 (src/host/status-server.ts).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { registrations } from '../handlers/registrations.js';
import type { Log } from '../log.js';
import { errorMessage } from '../log.js';
import type { Runtime } from '../runtime/runtime.js';
import { logStorageEvents } from '../runtime/storage-events.js';
import { readHostSettings, HOST_DEFAULTS, type QueueHostSettings } from './host-settings.js';
import { runQueueWorker } from './queue-worker.js';
import { startStatusServer } from './status-server.js';
import { DEFAULT_SCHEDULE, checkSchedule, runTimer } from './timer.js';

/** The nearest directory above this module with a host.json: found, not counted, since tsc and the CLI bundle put the module at different depths. */
export const PROJECT_ROOT = nearestDirectoryWith('host.json', path.dirname(fileURLToPath(import.meta.url)));

function nearestDirectoryWith(file: string, from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, file))) return dir;
    if (path.dirname(dir) === dir) return from;
  }
}

export interface LocalHostOptions {
  rt: Runtime;
  log: Log;
  schedule?: string;
  hostJsonFile?: string;
  runOnStartup?: boolean;
  /** Port of the status page on 127.0.0.1 (default 7071, or any free one when taken; 0 any); false for none. */
  statusPort?: number | false;
}

export interface LocalHost {
  settings: QueueHostSettings;
  /** The status page, when served. */
  statusUrl?: string;
  stop(): Promise<void>;
}

export async function startLocalHost(options: LocalHostOptions): Promise<LocalHost> {
  const { rt, log } = options;
  const settings = await readHostSettings(options.hostJsonFile ?? path.join(PROJECT_ROOT, 'host.json')).catch(() => HOST_DEFAULTS);
  const schedule = options.schedule ?? rt.env.DROVER_SCHEDULE ?? DEFAULT_SCHEDULE;
  checkSchedule(schedule);
  await rt.storage.ensure();
  logStorageEvents(rt, log);
  const ac = new AbortController();
  const running = registrations.flatMap((r) => {
    switch (r.trigger) {
      case 'timer':
        return [runTimer({ functionName: r.name, schedule, handler: (timer, context) => r.handler(rt, timer, context), log, signal: ac.signal, runOnStartup: options.runOnStartup })];
      case 'storageQueue':
        return [
          runQueueWorker({
            functionName: r.name,
            queue: rt.storage.queue(r.queue),
            poison: rt.storage.poisonQueue(r.queue),
            handler: (message, context) => r.handler(rt, message, context),
            laneOf: (message) => r.lane(message),
            settings,
            log,
            signal: ac.signal,
            recreate: () => rt.storage.recreate(),
          }),
        ];
      case 'http':
        return [];
    }
  }).map((p) => p.catch((err: unknown) => log.error(`local host: ${errorMessage(err)}`)));
  log.info(`local host running: timer "${schedule}", queues ${rt.storage.names.queues.reconcile} and ${rt.storage.names.queues.probe} (batch ${settings.batchSize}, max dequeue ${settings.maxDequeueCount})`);
  const http = registrations.find((r) => r.trigger === 'http');
  const page =
    options.statusPort === false || !http
      ? undefined
      : await startStatusServer({ handler: (request, context) => http.handler(rt, request, context), log, ...(options.statusPort === undefined ? {} : { port: options.statusPort }) });
  return {
    settings,
    ...(page ? { statusUrl: page.url } : {}),
    async stop() {
      await page?.close();
      ac.abort();
      rt.shutdown.abort(new Error('the local host is stopping'));
      await Promise.allSettled(running);
    },
  };
}
