/**
 * Start-up of the command line: `drover --help` in a fresh process, from tsc's output
 * (dist/src/cli.js over node_modules) and from the bundle the bin runs (dist/cli/drover.js),
 * interleaved so a slow spell of the machine weighs on both alike. And what a secure context
 * with every root certificate costs, which with `azure.caFile` set was paid per TLS socket
 * and is now paid once per process.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createSecureContext, rootCertificates } from 'node:tls';
import { median, repositoryRoot } from './cold-start.js';
import type { Benchmark, Figure } from './index.js';

const RUNS = 7;

/** Reports the process's own CPU on stderr as it exits: wall time on a busy 2-core machine says little. */
const REPORT_CPU = `data:text/javascript,${encodeURIComponent('process.on("exit", () => { const u = process.cpuUsage(); process.stderr.write(`cpu ${u.user + u.system}\\n`); });')}`;

/** CPU ms of `node <entry> --help`, start-up and exit included. */
function helpCpuMs(entry: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', REPORT_CPU, entry, '--help'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const cpu = /^cpu (\d+)$/m.exec(stderr);
      if (code !== 0 || !cpu) reject(new Error(`${entry} --help exited ${code}: ${stderr}`));
      else resolve(Number(cpu[1]) / 1000);
    });
  });
}

async function run(): Promise<Figure[]> {
  const root = repositoryRoot();
  const tsc = path.join(root, 'dist/src/cli.js');
  const bundle = path.join(root, 'dist/cli/drover.js');
  const times = { tsc: [] as number[], bundle: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    times.tsc.push(await helpCpuMs(tsc));
    times.bundle.push(await helpCpuMs(bundle));
  }
  const contexts = 5;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < contexts; i++) createSecureContext({ ca: [...rootCertificates] });
  const cpu = process.cpuUsage(cpu0);
  return [
    { label: 'drover --help, tsc output', value: median(times.tsc), unit: 'ms CPU' },
    { label: 'drover --help, bundle (the bin)', value: median(times.bundle), unit: 'ms CPU' },
    { label: 'speed-up from the bundle', value: median(times.tsc) / median(times.bundle), unit: '×' },
    { label: 'secure context with every root certificate (once per process now)', value: (cpu.user + cpu.system) / contexts / 1000, unit: 'ms CPU' },
  ];
}

const benchmark: Benchmark = { name: 'cli-start', description: `drover --help in a fresh process (CPU, median of ${RUNS}) and the TLS context it no longer builds per socket`, run };
export default benchmark;
