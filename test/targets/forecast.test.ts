// The forecast end to end (Azurite, the Kubernetes simulator, the production reconcile): a target
// with `forecast: observe` whose row holds eight days of a daily rise decides as without it, and
// says what the floor would have done in the decision log and in status; the season is in the
// row, so a status read from the stored row alone (a new process) shows the same floor.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { silentLog } from '../../src/log.js';
import { reconcileObject } from '../../src/reconcile/object.js';
import { mergeTargetRecord, readTargetRecord } from '../../src/scaler/read/target-store.js';
import { seasonIn, seasonText } from '../../src/scaler/recommend/forecast-stage.js';
import { SEASON_BUCKETS } from '../../src/scaler/recommend/forecast.js';
import { buildStatus } from '../../src/status/status.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { renderStatus } from '../../src/cli/render.js';
import { startTargetWorld, worldPerTest, WEB, webTarget } from './support.js';

const opened = worldPerTest();
const BUCKET_MS = 5 * 60_000;

/**
 * Eight days before `bucket` of a demand (the reconcile hands the policy its sources' demand in
 * replicas) of 1, and 10 over the hour from 5 minutes after that bucket's time each day.
 */
function dailyRise(bucket: number) {
  const values = Array.from({ length: SEASON_BUCKETS }, (_, i) => {
    const since = (((bucket - SEASON_BUCKETS + i - bucket) % 288) + 288) % 288;
    return since >= 1 && since <= 12 ? 10 : 1;
  });
  return { start: bucket - SEASON_BUCKETS, values };
}

describe('forecast: observe through the reconcile', () => {
  it('changes no scale, and the decision log and status say the floor; the season read back from the row', async () => {
    const start = Math.floor(Date.now() / BUCKET_MS) * BUCKET_MS + 10_000;
    const clock = new ManualClock(start);
    opened.world = await startTargetWorld((activator) => [webTarget(activator, { policy: 'adaptive', forecast: { mode: 'observe' }, minScale: 1, scaleToZero: { enabled: false } })], { clock });
    const { rt, kube } = opened.world;
    kube.add(WEB, { replicas: 1 });
    const table = rt.table('targets');
    // Eight days of a daily rise: a day and a week before now, the level was 1, and 10 right after.
    const season = dailyRise(Math.floor(start / BUCKET_MS));
    await mergeTargetRecord(table, 'web', () => ({ loadSeason: seasonText(season) }));
    const pass = async () => {
      clock.advance(1_000);
      await rt.stores.pushes.record('web', 10);
      await reconcileObject(rt, { kind: 'target', name: 'web' }, { reason: 'forced' }, { log: silentLog });
    };
    await pass();
    await pass();

    // The load asks for 1 replica; the rise of 9 seen a day and a week ago, for 1 + 9 = 10.
    expect(kube.inspect(WEB)?.specReplicas).toBe(1);
    const [latest] = await rt.decisions.recent(clock.now(), 1);
    expect(latest).toMatchObject({ object: 'target/web', forecast: { mode: 'observe', floor: 10, wouldRaise: true } });
    expect(latest!.reason).toContain('forecast floor 10 not applied (forecast: observe)');
    const status = await buildStatus(rt);
    expect(status.targets[0]!.policy).toMatchObject({ name: 'adaptive', forecast: { mode: 'observe', floor: 10 } });
    expect(renderStatus(status, clock.now())).toContain('forecast observe: floor 10');

    // Five minutes on, the bucket just ended is folded into the row (eight days stay eight days).
    clock.advance(BUCKET_MS);
    await pass();
    const kept = seasonIn(await readTargetRecord(table, 'web'));
    expect(kept.values).toHaveLength(SEASON_BUCKETS);
    expect(kept.start).toBe(season.start + 1);
    expect(kept.values.at(-1)).toBe(1);
    // A new process reads the floor from the row alone: the level a day ago is catching up with the
    // rise, (1 + 1 + 1 + 10) ÷ 4 = 3.25, so the rise is 6.75: ⌈1 + 6.75⌉ = 8.
    const fresh = await createRuntime({ configFile: rt.configFile, env: {} });
    const policy = (await buildStatus(fresh)).targets[0]!.policy;
    expect(policy).toMatchObject({ forecast: { mode: 'observe', floor: 8 } });
    expect((await buildStatus(rt)).targets[0]!.policy).toEqual(policy);
  }, 30_000);
});
