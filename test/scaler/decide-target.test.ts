// decideTarget: plain data in (record, a sample window, what was observed, settings, `now`),
// plain data out. A replay passes its own window and a virtual clock, as here.
import { describe, expect, it } from 'vitest';
import type { LoadWindow } from '../../src/load/decider.js';
import { markActive } from '../../src/scaler/read/conditions.js';
import { parseConfig } from '../../src/config/load.js';
import { decideTarget, targetSettings } from '../../src/scaler/decide/decide-target.js';
import { conditionFields, type TargetRecord } from '../../src/scaler/read/target-record.js';
import { settingsOver } from './support.js';

const T0 = Date.UTC(2026, 10, 30, 10, 0, 0);
const settings = settingsOver(60_000);

/** A window over pushed values, averaged like the stored one, that a ring buffer could stand in for. */
function windowOf(points: [at: number, value: number][]): LoadWindow {
  return {
    average(now, windowMs) {
      const inWindow = points.filter(([at]) => at > now - windowMs && at <= now);
      return inWindow.length === 0 ? undefined : inWindow.reduce((sum, [, v]) => sum + v, 0) / inWindow.length;
    },
  };
}

const activeRecord: TargetRecord = { ...(conditionFields(markActive({}, T0 - 600_000)) as TargetRecord), revision: 4 };

describe('decideTarget', () => {
  it('adopts a target seen for the first time, deciding no scale', () => {
    const decided = decideTarget({ record: undefined, holdLatest: false, samples: windowOf([[T0, 0]]), observation: { scale: 8, ready: 8 }, settings, now: T0 });
    expect(decided).toMatchObject({ kind: 'decided', adopted: true, plan: { kind: 'hold', reason: 'adopted' }, conditions: { active: { status: 'True', reason: 'AdoptedActive' } } });
  });

  it('holds without a sample in the window, then steps down at the rate limit once one arrives', () => {
    const empty = decideTarget({ record: activeRecord, holdLatest: false, samples: windowOf([]), observation: { scale: 8, ready: 8 }, settings, now: T0 });
    expect(empty).toMatchObject({ kind: 'decided', desired: { kind: 'unknown' }, plan: { kind: 'hold', reason: 'metrics-not-collected' } });
    const idle = decideTarget({ record: activeRecord, holdLatest: false, samples: windowOf([[T0, 0]]), observation: { scale: 8, ready: 8 }, settings, now: T0 + 1 });
    expect(idle).toMatchObject({ kind: 'decided', desired: { kind: 'known', desired: 4, limitedBy: 'maxScaleDownRate' }, plan: { kind: 'apply', scale: 4 } });
  });

  it('asks for the synchronous probe of an inactive target, and decides with its answer', () => {
    const inactive: TargetRecord = { activeStatus: 'False', activeSince: T0 - 60_000, activeReason: 'NoTraffic', revision: 2 };
    const input = { record: inactive, holdLatest: false, samples: windowOf([[T0, 0]]), observation: { scale: 1, ready: 1 }, settings: { ...settings, bounds: { minScale: 0, maxScale: 0 } }, now: T0 };
    expect(decideTarget(input)).toEqual({ kind: 'probe' });
    expect(decideTarget({ ...input, probe: { ok: true } })).toMatchObject({ kind: 'decided', plan: { kind: 'apply', scale: 0, reason: 'grace-period-elapsed' } });
  });
});

describe('targetSettings', () => {
  it('carries every configured setting the decisions read', () => {
    const config = parseConfig({
      kubernetes: { kubeconfig: '/nonexistent' },
      targets: [
        {
          name: 'web',
          scaleTargetRef: { kind: 'Deployment', name: 'web' },
          minScale: 2,
          maxScale: 9,
          scaleToZero: { enabled: false, stableWindow: '20s', gracePeriod: '7s' },
          activationTimeout: '42s',
          maxScaleUpRate: 3,
          maxScaleDownRate: 4,
          panic: { enabled: true, window: '2s', threshold: 300 },
          scaleDownDelay: '10s',
          initialScale: 3,
          activationScale: 2,
        },
      ],
    });
    expect(targetSettings(config.targets[0]!, 5).policy).toMatchObject({ scaleDownDelayMs: 10_000, initialScale: 3, activationScale: 2, behavior: {}, schedules: [] });
    expect(targetSettings(config.targets[0]!, 5)).toMatchObject({
      bounds: { minScale: 2, maxScale: 9 },
      scaleToZero: { enableScaleToZero: false, stableWindowMs: 20_000, gracePeriodMs: 7_000, activationTimeoutMs: 42_000 },
      desired: { targetPerReplica: 5, stableWindowMs: 20_000, maxScaleUpRate: 3, maxScaleDownRate: 4, panic: { enabled: true, windowMs: 2_000, thresholdPercent: 300 } },
    });
  });
});
