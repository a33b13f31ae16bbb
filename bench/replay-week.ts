/**
 * Replay of a week of one-second load samples (604,800 rows) for one `push` target — every
 * row a reconcile — through `drover replay` with the summary table and the HTML report, in a
 * process of its own so its peak RSS is the replay's. Figures: wall time and peak RSS.
 *
 * The load follows a day: busy in the day with noise and bursts, idle at night, so the week
 * holds scale-ups, rate-limited scale-downs and a wake from zero every morning.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Benchmark } from './index.js';

export const WEEK_SECONDS = 7 * 24 * 3_600;

/** Deterministic load for second `s` of the week. */
export function weekLoad(s: number): number {
  const hour = (s / 3_600) % 24;
  if (hour < 6 || hour >= 22) return 0;
  const day = Math.sin(((hour - 6) / 16) * Math.PI);
  const noise = ((s * 2_654_435_761) % 1_000) / 1_000;
  const burst = s % 5_400 < 120 ? 60 : 0;
  return Math.round((40 * day + 10 * noise + burst) * 10) / 10;
}

export async function writeWeekTrace(file: string): Promise<void> {
  const out = createWriteStream(file);
  out.write('time,load\n');
  let chunk = '';
  for (let s = 0; s < WEEK_SECONDS; s++) {
    chunk += `${s},${weekLoad(s)}\n`;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

const CONFIG = `kubernetes: {}
targets:
  - name: web
    scaleTargetRef: { kind: Deployment, name: web }
    activator: { probeUrl: "http://127.0.0.1:1/healthz" }
    load: { source: push, targetPerReplica: 10 }
`;

/** Runs in the child: the CLI, its output dropped, then the figures on the last line. */
const CHILD = String.raw`
const [cli, ...args] = process.argv.slice(1);
const { runCli } = await import(cli);
const started = performance.now();
const code = await runCli(args, { stdout: () => undefined, stderr: (s) => process.stderr.write(s), env: {} });
console.log(JSON.stringify({ code, ms: performance.now() - started, maxRssKiB: process.resourceUsage().maxRSS }));
`;

const benchmark: Benchmark = {
  name: 'replay-week',
  description: 'drover replay of a week of one-second samples (604,800 rows, one push target), summary and HTML report',
  async run() {
    const dir = mkdtempSync(path.join(tmpdir(), 'drover-replay-bench-'));
    try {
      const trace = path.join(dir, 'week.csv');
      const config = path.join(dir, 'drover.config.yaml');
      writeFileSync(config, CONFIG);
      await writeWeekTrace(trace);
      const cli = new URL('../src/cli.js', import.meta.url).href;
      const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, cli, '--config', config, 'replay', '--trace', trace, '--ready-delay', '20s', '--out', path.join(dir, 'report.html')], {
        cwd: path.dirname(fileURLToPath(import.meta.url)),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      const [code] = (await once(child, 'exit')) as [number];
      const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { code?: number; ms?: number; maxRssKiB?: number };
      if (code !== 0 || result.code !== 0) throw new Error(`the replay exited ${result.code ?? code}`);
      return [
        { label: 'replay time', value: result.ms! / 1000, unit: 's' },
        { label: 'peak RSS', value: result.maxRssKiB! / 1024, unit: 'MiB' },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;
