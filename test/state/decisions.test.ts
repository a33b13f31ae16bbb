import { beforeAll, describe, expect, it } from 'vitest';
import { EntityTable } from '../../src/state/entity-table.js';
import { DecisionLog } from '../../src/state/decisions.js';
import { freshStorage } from '../support/storage.js';
import type { Storage } from '../../src/state/storage.js';

let storage: Storage;
beforeAll(async () => {
  storage = await freshStorage();
});

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);

describe('decision log', () => {
  it('returns the newest decisions first and skips a repeat of the same decision within the hour', async () => {
    const log = new DecisionLog(new EntityTable(storage.table('decisions')));
    expect(await log.record({ at: NOW - 2_000, object: 'pool/a', decision: 'at limit', reason: 'r' })).toBe(true);
    expect(await log.record({ at: NOW - 1_000, object: 'pool/a', decision: 'at limit', reason: 'r' })).toBe(false);
    expect(await log.record({ at: NOW, object: 'pool/a', decision: 'brought up 1', reason: 'r' })).toBe(true);
    expect((await log.recent(NOW)).map((d) => d.decision)).toEqual(['brought up 1', 'at limit']);
  });

  it('a process that starts reads the last decision of the day (one read, then one batch a line); a new day writes the repeat once', async () => {
    const table = new EntityTable(storage.table('decisions'));
    expect(await new DecisionLog(table).record({ at: NOW - 5_000, object: 'pool/b', decision: 'steady', reason: 'r' })).toBe(true);
    const restarted = new DecisionLog(table);
    expect(await restarted.record({ at: NOW - 4_000, object: 'pool/b', decision: 'steady', reason: 'r' })).toBe(false);
    expect(await restarted.record({ at: NOW + DAY, object: 'pool/b', decision: 'steady', reason: 'r' })).toBe(true);
    expect(await restarted.record({ at: NOW + DAY + 1_000, object: 'pool/b', decision: 'steady', reason: 'r' })).toBe(false);
    // The last-decision rows are not lines.
    expect((await restarted.recent(NOW + DAY, 100)).filter((d) => d.object === 'pool/b')).toHaveLength(2);
  });

  it('keeps what the forecast made of a target decision, and reads it back with the line', async () => {
    const log = new DecisionLog(new EntityTable(storage.table('decisions')));
    const forecast = { mode: 'observe' as const, floor: 12, wouldRaise: true };
    await log.record({ at: NOW + 10_000, object: 'target/web', decision: 'steady at 4', reason: 'forecast floor 12 not applied (forecast: observe)', boundBy: 'Headroom', forecast });
    await log.record({ at: NOW + 11_000, object: 'target/api', decision: 'steady at 2', reason: 'r' });
    const lines = await log.recent(NOW + 11_000, 100);
    expect(lines.find((d) => d.object === 'target/web')).toMatchObject({ boundBy: 'Headroom', forecast });
    expect(lines.find((d) => d.object === 'target/api')).not.toHaveProperty('forecast');
  });

  it('prunes days older than the retention and keeps the rest', async () => {
    const log = new DecisionLog(new EntityTable(storage.table('decisions')), { retentionDays: 7 });
    for (const [days, object] of [[10, 'pool/old'], [9, 'pool/old2'], [1, 'pool/new']] as const) {
      await log.record({ at: NOW - days * DAY, object, decision: 'visited', reason: `${days} days ago` });
    }
    // Each old day: its line and the object's last-decision row.
    expect(await log.prune(NOW)).toBe(4);
    const left = await log.recent(NOW, 100);
    expect(left.map((d) => d.object)).toContain('pool/new');
    expect(left.map((d) => d.object)).not.toContain('pool/old');
    expect(await log.prune(NOW)).toBe(0);
  });
});
