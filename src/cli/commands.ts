/** What each `drover` verb does, once the command line is parsed. */
import { consoleLog, errorMessage, type Log } from '../log.js';
import { DEFAULT_SCHEDULE, checkSchedule } from '../host/schedule.js';
import { runPass, type PassReport } from '../reconcile/pass.js';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import { buildStatus } from '../status/status.js';
import { passReportJson, renderStatus, renderPass } from './render.js';
import { InventoryStore } from '../provisioner/inventory-store.js';

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
}

export class CliUsageError extends Error {
  override name = 'UsageError';
}

const stderrLog = (io: CliIO): Log => ({
  info: (...a) => io.stderr(`${a.join(' ')}\n`),
  warn: (...a) => io.stderr(`warning: ${a.join(' ')}\n`),
  error: (...a) => io.stderr(`error: ${a.join(' ')}\n`),
});

async function runtimeFor(io: CliIO, configFile: string | undefined): Promise<Runtime> {
  const rt = await createRuntime({ configFile, env: io.env });
  await rt.storage.ensure();
  return rt;
}

export const commands = {
  async reconcile(io: CliIO, configFile: string | undefined, opts: { dryRun?: boolean; json?: boolean }): Promise<number> {
    const rt = await runtimeFor(io, configFile);
    const report: PassReport = await runPass(rt, { log: stderrLog(io), dryRun: opts.dryRun, reason: opts.dryRun ? 'dry run' : 'drover reconcile', budgetMs: Infinity });
    io.stdout(opts.json ? `${JSON.stringify(passReportJson(report), null, 2)}\n` : renderPass(report));
    return report.errors > 0 ? 1 : 0;
  },

  async status(io: CliIO, configFile: string | undefined, opts: { json?: boolean }): Promise<number> {
    const rt = await runtimeFor(io, configFile);
    const status = await buildStatus(rt);
    io.stdout(opts.json ? `${JSON.stringify(status, null, 2)}\n` : renderStatus(status, rt.clock.now()));
    return 0;
  },

  async enqueue(io: CliIO, configFile: string | undefined, o: { target?: string; pool?: string; delay?: number; load?: number }): Promise<number> {
    const rt = await runtimeFor(io, configFile);
    const kind = o.target ? 'target' : 'pool';
    const name = (o.target ?? o.pool)!;
    const known = kind === 'target' ? rt.config.targets.some((t) => t.name === name) : rt.config.pools.some((p) => p.name === name);
    if (!known) throw new CliUsageError(`no ${kind} named "${name}" in ${rt.configFile}`);
    const { sent, dueAt } = await rt.queues.reconcile({ kind, name, reason: 'forced (drover enqueue)', ...(o.load !== undefined ? { load: o.load } : {}) }, o.delay ?? 0);
    const due = new Date(dueAt).toISOString();
    io.stdout(
      sent
        ? `enqueued a reconcile of ${kind}/${name} on ${rt.storage.names.queues.reconcile}, due ${due}${o.load !== undefined ? ` with load ${o.load}` : ''}\n`
        : `a reconcile of ${kind}/${name} due ${due} is already pending; nothing more enqueued\n`,
    );
    return 0;
  },

  async forget(io: CliIO, configFile: string | undefined, pool: string, id: string): Promise<number> {
    const rt = await runtimeFor(io, configFile);
    if (!rt.config.pools.some((p) => p.name === pool)) throw new CliUsageError(`no pool named "${pool}" in ${rt.configFile}`);
    const removed = await new InventoryStore(rt.table('machines'), pool, rt.clock).remove(id);
    if (!removed) {
      io.stderr(`pool ${pool} has no inventory row for ${id}\n`);
      return 1;
    }
    await rt.decisions.record({ at: rt.clock.now(), object: `pool/${pool}`, decision: 'forgot machine', reason: `inventory row ${id} removed by an operator (drover machines forget)` });
    io.stdout(`removed ${id} from the inventory of pool ${pool}\n`);
    return 0;
  },

  async run(io: CliIO, configFile: string | undefined): Promise<number> {
    try {
      checkSchedule(io.env.DROVER_SCHEDULE ?? DEFAULT_SCHEDULE);
    } catch (err) {
      throw new CliUsageError(`DROVER_SCHEDULE: ${errorMessage(err)}`);
    }
    const rt = await runtimeFor(io, configFile);
    // Loaded only here: it brings in @azure/functions and the function modules.
    const { startLocalHost } = await import('../host/local-host.js');
    const host = await startLocalHost({ rt, log: consoleLog, schedule: io.env.DROVER_SCHEDULE ?? DEFAULT_SCHEDULE });
    if (host.statusUrl) io.stdout(`status page: ${host.statusUrl}\n`);
    await untilSignal();
    io.stderr('stopping…\n');
    await host.stop();
    return 0;
  },

  async sim(io: CliIO, opts: { forMs?: number; statusEveryMs?: number }): Promise<number> {
    const { runDemo } = await import('../sim/demo.js');
    return runDemo(io, opts);
  },
};

export function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}
