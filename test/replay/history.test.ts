// `drover replay --from-history`: the history table's load samples as the trace, at their own times.
import { TableClient } from '@azure/data-tables';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { historyTrace } from '../../src/replay/history-source.js';
import { escapeKey } from '../../src/state/keys.js';
import { azuriteStorage, tempDir, writeConfig } from '../support/config.js';

const minute = (ms: number) => `${new Date(ms).toISOString().slice(0, 16)}Z`;

describe('historyTrace', () => {
  const at = Date.UTC(2026, 10, 30, 10, 5);
  it.each([
    { name: 'a target minute with its load is a row at the start of the minute', entity: { partitionKey: 'target%2Fweb', rowKey: minute(at), load: 12.5 }, want: [{ at, target: 'web', load: 12.5, line: 1 }] },
    { name: 'a minute without a load is skipped', entity: { partitionKey: 'target%2Fweb', rowKey: minute(at) }, want: [] },
    { name: 'pools are not traces', entity: { partitionKey: 'pool%2Fworkers', rowKey: minute(at), load: 3 }, want: [] },
    { name: 'older than the window: skipped', entity: { partitionKey: 'target%2Fweb', rowKey: minute(at - 3_600_000), load: 3 }, want: [] },
    { name: 'a key that is no minute: skipped', entity: { partitionKey: 'target%2Fweb', rowKey: 'latest', load: 3 }, want: [] },
  ])('$name', ({ entity, want }) => {
    expect(historyTrace([entity], at - 60_000, [])).toEqual(want);
  });

  it("replays a minute row's samples at their own times, and no change row as load", () => {
    const rows = historyTrace(
      [
        { partitionKey: 'target%2Fweb', rowKey: minute(at), load: 25 / 3, loadMin: 0, loadMax: 25, loadPoints: '[[8000,25],[41000,0]]' },
        { partitionKey: 'target%2Fweb', rowKey: new Date(at + 8_000).toISOString(), desired: 3, scale: 3, ready: 1 },
      ],
      at - 60_000,
      [],
    );
    expect(rows).toEqual([
      { at: at + 8_000, target: 'web', load: 25, line: 1 },
      { at: at + 41_000, target: 'web', load: 0, line: 2 },
    ]);
  });

  it('merges targets in time order', () => {
    const rows = historyTrace(
      [
        { partitionKey: 'target%2Fweb', rowKey: minute(at + 60_000), load: 2 },
        { partitionKey: 'target%2Fapi', rowKey: minute(at), load: 1 },
      ],
      0,
      [],
    );
    expect(rows.map((r) => `${r.target}@${r.at - at}`)).toEqual(['api@0', 'web@60000']);
  });
});

describe('drover replay --from-history', () => {
  it('replays the last 24 hours of the history table', async () => {
    const storage = azuriteStorage();
    const file = writeConfig(
      {
        storage,
        kubernetes: {},
        targets: [{ name: 'web', policy: 'knative', scaleTargetRef: { kind: 'Deployment', name: 'web' }, activator: { probeUrl: 'http://127.0.0.1:1/healthz' }, load: { source: 'push', targetPerReplica: 10 } }],
      },
      tempDir(),
    );
    const table = TableClient.fromConnectionString(storage.connection, `${storage.prefix}history`, { allowInsecureConnection: true });
    await table.createTable();
    const now = Date.now();
    const loads = [45, 45, 45, 0, 0, 0, 0, 25, 25];
    for (const [i, load] of loads.entries()) {
      await table.createEntity({ partitionKey: escapeKey('target/web'), rowKey: minute(now - (loads.length - i) * 60_000), load });
    }
    // Outside the 24 hours asked for.
    await table.createEntity({ partitionKey: escapeKey('target/web'), rowKey: minute(now - 25 * 3_600_000), load: 500 });

    let stdout = '';
    let stderr = '';
    const code = await runCli(['--config', file, 'replay', '--from-history', '24h', '--json'], { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env: {} });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { targets: { name: string; summary: { peakReplicas: number; wakesFromZero: number } }[] };
    expect(report.targets[0]).toMatchObject({ name: 'web', summary: { peakReplicas: 5, wakesFromZero: 2 } });
  });
});
