/**
 * A target's policy keys as the configuration loader reads them (parseConfig, the schema
 * `loadConfig` validates every file with): defaults that change nothing, HPA's default rules,
 * and errors that name the field. Rows are sentences.
 */
import { describe, expect, it } from 'vitest';
import { isConfigError, parseConfig } from '../../src/config/load.js';

const WHERE = 'targets[0].';

/** A configuration with one target carrying `policy` (at least one replica: no activator needed). */
const withTarget = (policy: object) => ({ kubernetes: { kubeconfig: '/k/config' }, targets: [{ name: 'web', minScale: 1, scaleTargetRef: { kind: 'Deployment', name: 'web' }, ...policy }] });

function parsed(policy: object) {
  return parseConfig(withTarget(policy)).targets[0]!;
}

/** The problems the loader reports, their paths from the target on. */
function problems(policy: object): string[] {
  try {
    parseConfig(withTarget(policy));
    return [];
  } catch (error) {
    if (!isConfigError(error)) throw error;
    return error.problems.map((p) => `${p.path.startsWith(WHERE) ? p.path.slice(WHERE.length) : p.path}: ${p.message}`);
  }
}

describe("a target's policy keys, as the configuration loader reads them", () => {
  it('a target without policy keys gets defaults that change nothing', () => {
    expect(parsed({})).toMatchObject({ cooldown: 300_000, scaleDownDelay: 0, initialScale: 1, activationScale: 1, schedules: [] });
    expect(parsed({}).behavior).toBeUndefined();
    expect(parsed({}).fallback).toBeUndefined();
  });

  it('one source stays one source, read as a list of one named "load" combined by max', () => {
    expect(parsed({ load: { source: 'http', url: 'http://m.example/q', targetPerReplica: 3 } }).load).toEqual({
      sources: [{ name: 'load', source: 'http', metricType: 'total', url: 'http://m.example/q', timeout: 2_000, targetPerReplica: 3, activationThreshold: 0 }],
      combine: 'max',
      pollInterval: undefined,
    });
  });

  it('a one-source error names the field under load', () => {
    expect(problems({ load: { source: 'http', url: 'nope', targetPerReplica: 3 } })).toEqual(['load.url: expected a URL']);
  });

  it('several sources with a formula over their names parse, the poll interval left to its default', () => {
    const load = parsed({
      load: {
        sources: [
          { name: 'jobs', source: 'queue', queueName: 'jobs', accountName: 'acct', targetPerReplica: 5, activationThreshold: 2 },
          { name: 'web', source: 'push', targetPerReplica: 10 },
        ],
        combine: { formula: 'jobs ?? web * 2', targetPerReplica: 5 },
      },
    }).load as { sources: { name: string; activationThreshold?: number }[]; combine: unknown; pollInterval?: number };
    expect(load.sources.map((s) => [s.name, s.activationThreshold])).toEqual([['jobs', 2], ['web', 0]]);
    expect(load.combine).toEqual({ formula: 'jobs ?? web * 2', targetPerReplica: 5 });
    expect(load.pollInterval).toBeUndefined();
  });

  const refused: [string, object, string][] = [
    ['a formula naming no source is refused at its path', { load: { sources: [{ name: 'a', source: 'push', targetPerReplica: 1 }], combine: { formula: 'a ?? b', targetPerReplica: 1 } } }, 'load.combine.formula: the formula reads "b", which no source is named (sources: a)'],
    ['a formula that calls code is refused', { load: { sources: [{ name: 'a', source: 'push', targetPerReplica: 1 }], combine: { formula: 'a.constructor', targetPerReplica: 1 } } }, 'load.combine.formula: unsupported expression (MemberExpression)'],
    ['two sources of one name are refused', { load: { sources: [{ name: 'a', source: 'push', targetPerReplica: 1 }, { name: 'a', source: 'push', targetPerReplica: 2 }] } }, 'load.sources[1].name: duplicate source name "a"'],
    ['a poll interval under 2s is refused', { load: { sources: [{ name: 'a', source: 'push', targetPerReplica: 1 }], pollInterval: '1s' } }, 'load.pollInterval: expected a duration of at least 2s (the reconcile queue is polled every 2 s)'],
    ['a policy type HPA does not know is refused at its path', { behavior: { scaleDown: { policies: [{ type: 'Pod', value: 1 }] } } }, 'behavior.scaleDown.policies[0].type: expected "Pods" or "Percent"'],
    ['a negative failure threshold is refused (KEDA would ignore the fallback)', { fallback: { failureThreshold: -3, replicas: 10 } }, 'fallback.failureThreshold: expected a number ≥ 0'],
    ['an unknown time zone is refused', { schedules: [{ cron: '0 9 * * *', duration: '8h', timezone: 'Mars/Base', minScale: 5 }] }, 'schedules[0].cron: invalid cron expression or time zone "Mars/Base": CronDate: unhandled timestamp: Invalid Date'],
    ['a schedule that sets neither bound is refused', { schedules: [{ cron: '0 9 * * *', duration: '8h' }] }, 'schedules[0]: expected minScale, maxScale or both'],
    ['a scale-down delay over an hour is refused', { scaleDownDelay: '2h' }, 'scaleDownDelay: expected a duration from 0s to 1h, got "2h"'],
  ];
  it.each(refused)('%s', (_name, value, problem) => {
    expect(problems(value)).toEqual([problem]);
  });

  it('a direction given without policies gets HPA defaults: up [Pods 4/15s, Percent 100%/15s], window 0, Max (policy-cases HPA 20)', () => {
    expect(parsed({ behavior: { scaleUp: {} } }).behavior!.scaleUp).toEqual({
      stabilizationWindow: 0,
      policies: [{ type: 'Pods', value: 4, period: 15_000 }, { type: 'Percent', value: 100, period: 15_000 }],
      selectPolicy: 'Max',
      tolerance: 0.1,
    });
  });

  it('given policies replace the defaults, the window and select kept (policy-cases HPA 21)', () => {
    expect(parsed({ behavior: { scaleUp: { policies: [{ type: 'Pods', value: 4, period: '2s' }], stabilizationWindow: '25s' } } }).behavior!.scaleUp).toEqual({
      stabilizationWindow: 25_000,
      policies: [{ type: 'Pods', value: 4, period: 2_000 }],
      selectPolicy: 'Max',
      tolerance: 0.1,
    });
  });

  it('scale down given without a window gets the controller default of 5 minutes and [Percent 100%/15s]', () => {
    expect(parsed({ behavior: { scaleDown: {} } }).behavior!.scaleDown).toMatchObject({ stabilizationWindow: 300_000, policies: [{ type: 'Percent', value: 100, period: 15_000 }] });
  });
});
