/**
 * A CPU profile of one stretch of a benchmark, for finding where its time goes:
 * `DROVER_BENCH_PROFILE=DIR npm run bench -- pool` writes `DIR/<name>.cpuprofile` (open it in
 * Chrome's DevTools, or summarise it with `node dist/bench/profile-summary.js FILE`). Without the
 * variable, `profiled` only runs the work.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

export async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  const dir = process.env.DROVER_BENCH_PROFILE;
  if (!dir) return work();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  try {
    return await work();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}
