import { expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli.js';
import { azuriteStorage, writeConfig } from '../support/config.js';

// Its own file, so that its process has not touched @azure/functions' registration before.
it('drover run starts the local host without the "test mode" lines of @azure/functions', async () => {
  const printed: string[] = [];
  const spies = (['log', 'info', 'warn', 'error', 'debug', 'trace'] as const).map((method) =>
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push(args.join(' '))),
  );
  try {
    const file = writeConfig({ storage: azuriteStorage() });
    let out = '';
    const io = { stdout: (s: string) => void (out += s), stderr: (s: string) => void (out += s), env: { DROVER_SCHEDULE: '* * * * * *' } };
    const running = runCli(['--config', file, 'run', '--verbose'], io);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !printed.some((line) => /reconcileTimer: executing/.test(line))) await new Promise((r) => setTimeout(r, 50));
    process.emit('SIGINT');
    expect(await running).toBe(0);
    const all = [...printed, out].join('\n');
    expect(all).toMatch(/local host running/);
    expect(all).toMatch(/reconcileTimer: executing/);
    // Every line of the host's log says when.
    expect(printed.filter((line) => !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z /.test(line))).toEqual([]);
    expect(all).not.toMatch(/test mode/);
    expect(out).toMatch(/^status page: http:\/\/127\.0\.0\.1:\d+\/api\/status$/m);
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
});
