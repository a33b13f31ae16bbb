/** What each `drover` verb does, once the command line is parsed. */
import { consoleLog, errorMessage, timestamped, verboseConsoleLog, type Log } from '../log.js';
import { DEFAULT_SCHEDULE } from '../host/default-schedule.js';
import { runPass, unfinished, type PassReport } from '../reconcile/pass.js';
import { objectKey } from '../job/context.js';
import { formatDuration } from '../config/duration.js';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import { buildStatus } from '../status/status.js';
import { passReportJson, renderStatus, renderPass, shortId } from './render.js';
import { forgetMachines, type ForgetRequest } from '../pool/forget.js';
import { aborted, stopRequest, type CliIO } from './io.js';
import { nodeCommand } from '../package-root.js';
import { checkTableStorage } from './reachability.js';
import { configPauseRefusal, setPause, type PauseRequest } from './pause.js';
import { fileURLToPath } from 'node:url';
import { pushSourceName } from '../load/push-served.js';
import { pushLoad } from '../queue/push.js';


export class CliUsageError extends Error {
  override name = 'UsageError';
}

const stderrLog = (io: CliIO): Log => ({
  info: (...a) => io.stderr(`${a.join(' ')}\n`),
  warn: (...a) => io.stderr(`warning: ${a.join(' ')}\n`),
  error: (...a) => io.stderr(`error: ${a.join(' ')}\n`),
});

/**
 * The runtime for a verb: the configuration is read and `check`ed first (a name that is not in it
 * is a usage error found without any connection), then storage is reached, or said not to be.
 */
async function runtimeFor(io: CliIO, configFile: string | undefined, check: (rt: Runtime) => void = () => undefined): Promise<Runtime> {
  const rt = await createRuntime({ configFile, env: io.env });
  check(rt);
  await checkTableStorage(rt.storage.table('leases').url);
  await rt.storage.ensure();
  return rt;
}

export const commands = {
  async reconcile(io: CliIO, configFile: string | undefined, opts: { dryRun?: boolean; json?: boolean; budget?: number }): Promise<number> {
    const rt = await runtimeFor(io, configFile);
    // The timer's budget, but nothing handed to the queue: what is left is reported instead.
    // The report below lists every decision: the log adds only warnings and errors, not each decision again.
    const log: Log = { ...stderrLog(io), info: () => undefined };
    const report: PassReport = await runPass(rt, {
      log,
      dryRun: opts.dryRun,
      reason: opts.dryRun ? 'dry run' : 'drover reconcile',
      budgetMs: opts.budget,
      enqueue: false,
      signal: rt.shutdown.signal,
    });
    io.stdout(opts.json ? `${JSON.stringify(passReportJson(report), null, 2)}\n` : renderPass(report));
    const left = unfinished(report);
    if (left.length > 0) {
      io.stderr(`error: could not finish within ${formatDuration(report.finishedAt - report.startedAt)}: ${left.map(objectKey).join(', ')}\n`);
    }
    return report.errors > 0 || left.length > 0 ? 1 : 0;
  },

  async status(io: CliIO, configFile: string | undefined, opts: { json?: boolean }): Promise<number> {
    const rt = await runtimeFor(io, configFile);
    const status = await buildStatus(rt);
    io.stdout(opts.json ? `${JSON.stringify(status, null, 2)}\n` : renderStatus(status, rt.clock.now()));
    return 0;
  },

  async enqueue(io: CliIO, configFile: string | undefined, o: { target?: string; pool?: string; delay?: number; load?: number }): Promise<number> {
    const kind = o.target ? 'target' : 'pool';
    const name = (o.target ?? o.pool)!;
    const rt = await runtimeFor(io, configFile, (r) => {
      const target = r.config.targets.find((t) => t.name === name);
      const known = kind === 'target' ? target !== undefined : r.config.pools.some((p) => p.name === name);
      if (!known) throw new CliUsageError(`no ${kind} named "${name}" in ${r.configFile}`);
      if (o.load !== undefined && pushSourceName(target?.load) === undefined) {
        throw new CliUsageError(`target "${name}" has no push source in ${r.configFile}: --load is for a target whose load is pushed (load.source: push, or no load)`);
      }
    });
    const reason = 'forced (drover enqueue)';
    const { sent, dueAt } =
      o.load === undefined
        ? await rt.queues.reconcile({ kind, name, reason }, o.delay ?? 0)
        : await pushLoad({ pushes: rt.stores.pushes, queues: rt.queues }, name, o.load, reason, o.delay ?? 0);
    const due = new Date(dueAt).toISOString();
    const pushed = o.load !== undefined ? `; load ${o.load} is pushed (served by that reconcile or the next timer pass, whichever comes first)` : '';
    io.stdout(
      sent
        ? `enqueued a reconcile of ${kind}/${name} on ${rt.storage.names.queues.reconcile}, due ${due}${pushed}\n`
        : `a reconcile of ${kind}/${name} due ${due} is already pending${pushed || '; nothing more enqueued'}\n`,
    );
    return 0;
  },

  async forget(io: CliIO, configFile: string | undefined, poolName: string, request: ForgetRequest): Promise<number> {
    const rt = await runtimeFor(io, configFile, (r) => {
      if (!r.config.pools.some((p) => p.name === poolName)) throw new CliUsageError(`no pool named "${poolName}" in ${r.configFile}`);
    });
    const pool = rt.config.pools.find((p) => p.name === poolName)!;
    const result = await forgetMachines(rt, pool, request);
    switch (result.kind) {
      case 'busy':
        io.stderr(`pool ${poolName} is being reconciled by ${result.heldBy} until ${new Date(result.until).toISOString()}; try again then\n`);
        return 1;
      case 'refused':
        io.stderr(`${result.reason}\n`);
        return 1;
      case 'wouldForget':
        io.stdout(result.ids.length ? `would forget ${result.ids.length} row(s) whose VM ARM does not list:\n${result.ids.map((id) => `  ${shortId(id)}\n`).join('')}` : 'every inventory row has its VM listed by ARM; nothing to forget\n');
        return 0;
      case 'forgotten':
        if (result.ids.length) {
          await rt.decisions.record({ at: rt.clock.now(), object: `pool/${poolName}`, decision: `forgot ${result.ids.length} machine(s)`, reason: `inventory rows removed by an operator (drover machines forget): ${result.ids.join(', ')}` });
        }
        io.stdout(result.ids.length ? result.ids.map((id) => `removed ${shortId(id)} from the inventory of pool ${poolName}\n`).join('') : 'nothing to forget\n');
        return 0;
    }
  },

  async pause(io: CliIO, configFile: string | undefined, target: string, request: PauseRequest): Promise<number> {
    const rt = await runtimeFor(io, configFile, (r) => {
      const configured = r.config.targets.find((t) => t.name === target);
      if (!configured) throw new CliUsageError(`no target named "${target}" in ${r.configFile}`);
      const refusal = configPauseRefusal(request, configured.paused === true);
      if (refusal) throw new CliUsageError(`target ${target} ${refusal} (${r.configFile})`);
    });
    const result = await setPause(rt, target, request);
    if (result.kind === 'busy') {
      io.stderr(`target ${target} is being reconciled by ${result.heldBy} until ${new Date(result.until).toISOString()}; try again then\n`);
      return 1;
    }
    const what = request.kind === 'resume' ? 'resumed' : `paused (${request.replicas !== undefined ? `pinned at ${request.replicas}` : request.mode === 'all' ? 'no scale written' : `no ${request.mode}`})`;
    await rt.decisions.record({ at: rt.clock.now(), object: `target/${target}`, decision: what, reason: `by an operator (drover ${request.kind}); every instance obeys at its next reconcile` });
    io.stdout(`target ${target}: ${what}${result.waitedFor ? ` (after the running reconcile by ${result.waitedFor} finished its writes)` : ''}\n`);
    if (request.kind === 'resume' && result.configPaused) io.stderr(`warning: target ${target} stays paused: the configuration says paused: true\n`);
    return 0;
  },

  async run(io: CliIO, configFile: string | undefined, opts: { verbose?: boolean } = {}): Promise<number> {
    // The cron parser is loaded by the verbs that run a schedule only.
    const { checkSchedule } = await import('../host/schedule.js');
    try {
      checkSchedule(io.env.DROVER_SCHEDULE ?? DEFAULT_SCHEDULE);
    } catch (err) {
      throw new CliUsageError(`DROVER_SCHEDULE: ${errorMessage(err)}`);
    }
    const rt = await runtimeFor(io, configFile);
    // Loaded only here: it brings in @azure/functions (for InvocationContext) and every handler.
    const { startLocalHost } = await import('../host/local-host.js');
    const log = timestamped(opts.verbose ? verboseConsoleLog : consoleLog, () => rt.clock.now());
    const host = await startLocalHost({ rt, log, schedule: io.env.DROVER_SCHEDULE ?? DEFAULT_SCHEDULE });
    if (host.statusUrl) io.stdout(`status page: ${host.statusUrl}\n`);
    const stop = stopRequest();
    try {
      await aborted(stop.signal);
      io.stderr(`stopping (${errorMessage(stop.signal.reason)})…\n`);
      await host.stop();
    } finally {
      stop.dispose();
    }
    return 0;
  },

  async sim(io: CliIO, opts: { forMs?: number; verbose?: boolean; recordDir?: string }, bundled?: BundledDemo): Promise<number> {
    const demo = bundled?.module ?? (await importDemo());
    if (demo === undefined) {
      throw new CliUsageError(
        `no demo at ${fileURLToPath(DEMO_URL)}: drover sim runs the demo of a checkout built with \`npm run build\` ` +
          '(or run `npm start` in the checkout, which builds its own); an installed package has none',
      );
    }
    const stop = stopRequest();
    try {
      // The commands it prints run the command line, from any directory: by default this very file.
      const self = process.argv[1];
      const cliCommand = bundled?.cliCommand ?? (self ? nodeCommand(self) : undefined);
      return await demo.runDemo(io, { ...opts, signal: stop.signal, ...(cliCommand ? { cliCommand } : {}) });
    } finally {
      stop.dispose();
    }
  },
};

export interface DemoModule {
  runDemo(io: CliIO, opts: { forMs?: number; verbose?: boolean; recordDir?: string; signal?: AbortSignal; cliCommand?: string }): Promise<number>;
}

/** The demo `npm start` bundles with the command line, and the command its lines should print. */
export interface BundledDemo {
  module: DemoModule;
  cliCommand?: string;
}

/**
 * The demo lives in the top-level sim/ directory, next to src/ in a checkout (and in dist/ after
 * tsc). The specifier is computed so that neither tsc nor a bundler follows it: sim/ stays out of
 * the `drover` bin's import graph and out of the function app.
 */
const DEMO_URL = new URL(['..', '..', 'sim', 'demo.js'].join('/'), import.meta.url);

/** The demo module, or `undefined` when there is none at `demoUrl` (an installed package). */
export async function importDemo(demoUrl: URL = DEMO_URL): Promise<DemoModule | undefined> {
  try {
    return (await import(demoUrl.href)) as DemoModule;
  } catch (err) {
    if (isMissingModule(err, demoUrl)) return undefined;
    throw err;
  }
}

/** Node says ERR_MODULE_NOT_FOUND; a test runner's loader may say it in words. */
function isMissingModule(err: unknown, url: URL): boolean {
  if (!(err instanceof Error) || !err.message.includes(url.pathname)) return false;
  return (err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' || /cannot find|failed to load|does not exist/i.test(err.message);
}
