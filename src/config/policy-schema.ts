/**
 * The scaling-policy keys of a target (docs/scaling.md): its load sources and how they
 * combine, the fallback, activation and cooldown, HPA `behavior`, Knative's delay and initial
 * and activation scale, and schedules. Each default changes nothing for a configuration
 * without the key. Durations come out in milliseconds, as in schema.ts.
 */
import { z } from 'zod';
import { CronExpressionParser } from 'cron-parser';
import { boundedMs, count, nonEmpty, parsedString, targetPerReplica } from './fields.js';
import { MAX_REPLICAS } from '../limits.js';
import { parseDuration } from './duration.js';
import { FormulaError, parseFormula } from '../scaler/recommend/formula.js';
import { SOURCE_KINDS, type SourceKindName } from '../load/registry.js';
import { SINGLE_SOURCE_NAME, type MetricType, type SourceKind } from '../load/source-kind.js';

export { SINGLE_SOURCE_NAME };

const MAX_SOURCES = 16;
const MAX_SCHEDULES = 32;
const MAX_POLICIES = 10;
const HOUR_MS = 3_600_000;

/**
 * How often an http or queue source is sampled and its target decided (HPA's sync period); the
 * reconcile queue is polled every 2 s (host.json), so a shorter period gains nothing.
 */
export const MIN_POLL_INTERVAL_MS = 2_000;
/** Absent: DEFAULT_POLL_INTERVAL_MS (15 s), applied where the target's settings are made. */
export const DEFAULT_POLL_INTERVAL_MS = 15_000;
const pollInterval = parsedString('expected a duration such as "2s", "15s" or "1m"', (text) => boundedMs(text, parseDuration(text), true))
  .refine((ms) => ms >= MIN_POLL_INTERVAL_MS, { error: 'expected a duration of at least 2s (the reconcile queue is polled every 2 s)' })
  .optional();

/** The keys every source shares, around a kind's own (load/source-kind.ts). */
const sharedKeys = (kind: SourceKind) => ({
  source: z.literal(kind.name),
  targetPerReplica,
  metricType: kind.traits.metricType.fixed
    ? z.undefined({ error: `"${kind.name}" fixes its metricType (${kind.traits.metricType.default}); remove the key` }).optional().transform(() => kind.traits.metricType.default)
    : z.enum(['total', 'perReplica'], { error: 'expected "total" or "perReplica"' }).default(kind.traits.metricType.default),
  ...(kind.traits.delivery === 'polled' ? { pollInterval } : {}),
});

const SOURCE_ERROR = { error: `expected source ${SOURCE_KINDS.map((k) => `"${k.name}"`).join(', ')}` };

/** A kind's source object: its own keys, the shared ones and `extra`, strict, with the kind's own checks. */
function kindSchema(kind: SourceKind, extra: z.ZodRawShape) {
  return z
    .object({ ...kind.keys, ...sharedKeys(kind), ...extra })
    .strict()
    .superRefine((config, ctx) => {
      for (const issue of kind.check?.(config) ?? []) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    });
}

/** One source of every registered kind, with `extra` keys: the one union of sources. */
const sourceUnion = (extra: z.ZodRawShape) =>
  z.discriminatedUnion('source', SOURCE_KINDS.map((k) => kindSchema(k as unknown as SourceKind, extra)) as unknown as [z.ZodObject, ...z.ZodObject[]], SOURCE_ERROR);

/** A duration bounded by `[minMs, maxMs]`, with the default `fallback`. */
const durationWithin = (fallback: string, minMs: number, maxMs: number, expected: string) =>
  parsedString('expected a duration such as "90s", "5m" or "1h30m"', (text) => {
    const ms = parseDuration(text);
    if (ms < minMs || ms > maxMs) throw new Error(`expected ${expected}, got "${text}"`);
    return ms;
  }).prefault(fallback);

const sourceName = z
  .string({ error: 'expected a name' })
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,31}$/, { error: 'expected 1–32 letters, digits or "_", starting with a letter or "_" (formulas read it)' });

/** Per source: active when strictly above (KEDA activationTargetValue). */
const activationThreshold = z.number({ error: 'expected a number' }).min(0, { error: 'expected a number ≥ 0' }).default(0);
const named = { name: sourceName, activationThreshold };

const namedSource = sourceUnion(named);

const combine = z
  .union([
    z.enum(['max', 'min', 'sum'], { error: 'expected "max", "min", "sum" or { formula, targetPerReplica }' }),
    z.object({ formula: nonEmpty, targetPerReplica }).strict(),
  ], { error: 'expected "max", "min", "sum" or { formula, targetPerReplica }' })
  .default('max');

const severalSources = z
  .object({
    sources: z.array(namedSource, { error: 'expected a list of sources' }).min(1, { error: 'expected at least one source' }).max(MAX_SOURCES, { error: `expected at most ${MAX_SOURCES} sources` }),
    combine,
    pollInterval,
  })
  .strict()
  .superRefine((load, ctx) => {
    const seen = new Set<string>();
    (load.sources as NamedSourceConfig[]).forEach((s, i) => {
      if (seen.has(s.name)) ctx.addIssue({ code: 'custom', path: ['sources', i, 'name'], message: `duplicate source name "${s.name}"` });
      seen.add(s.name);
    });
    if (typeof load.combine === 'object') {
      try {
        parseFormula(load.combine.formula, [...seen]);
      } catch (err) {
        if (!(err instanceof FormulaError)) throw err;
        ctx.addIssue({ code: 'custom', path: ['combine', 'formula'], message: err.message });
      }
    }
  });

/** One source (`load: { source, … }`) reads as a list of one, named `load`, at config load. */
const oneSource = z
  .unknown()
  .transform((value, ctx) => {
    const parsed = sourceUnion({ activationThreshold }).safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
      return z.NEVER;
    }
    const source = parsed.data as NamedSourceConfig;
    return { sources: [{ ...source, name: SINGLE_SOURCE_NAME }], combine: 'max' as const, pollInterval: source.pollInterval };
  })
  .meta({ forms: [sourceUnion({ activationThreshold: activationThreshold.optional() })] });

/**
 * `load`: one source (`{ source, … }`) or `{ sources, combine, pollInterval }`; both come out as
 * the latter, so everything after config load reads one list. The form is chosen by whether
 * `sources` is given, so each form's own errors are reported, not a union's "Invalid input";
 * `forms` lets the README's reference test walk both.
 */
export const loadSpec = z
  .unknown()
  .transform((value, ctx) => {
    const schema = value && typeof value === 'object' && 'sources' in value ? severalSources : oneSource;
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: 'custom', message: issue.message, path: issue.path });
      return z.NEVER;
    }
    return parsed.data as LoadSpecConfig;
  })
  .meta({ forms: [severalSources, oneSource] });

const fallback = z
  .object({
    failureThreshold: count(0, 1_000),
    replicas: count(0, MAX_REPLICAS),
    behavior: z
      .enum(['static', 'currentReplicas', 'currentReplicasIfHigher', 'currentReplicasIfLower'], {
        error: 'expected "static", "currentReplicas", "currentReplicasIfHigher" or "currentReplicasIfLower"',
      })
      .default('static'),
  })
  .strict();

const policy = z
  .object({
    type: z.enum(['Pods', 'Percent'], { error: 'expected "Pods" or "Percent"' }),
    value: count(1, 100_000),
    /** HPA: 1 s to 30 min. */
    period: durationWithin('15s', 1_000, 30 * 60_000, 'a duration from 1s to 30m'),
  })
  .strict();

type PolicyInput = z.input<typeof policy>;

/** HPA's GenerateHPAScale{Up,Down}Rules: a direction given with no policies gets these; given policies replace them. */
const DEFAULT_UP_POLICIES: PolicyInput[] = [{ type: 'Pods', value: 4, period: '15s' }, { type: 'Percent', value: 100, period: '15s' }];
const DEFAULT_DOWN_POLICIES: PolicyInput[] = [{ type: 'Percent', value: 100, period: '15s' }];

const scalingRules = (window: string, policies: PolicyInput[]) =>
  z
    .object({
      stabilizationWindow: durationWithin(window, 0, HOUR_MS, 'a duration from 0s to 1h'),
      policies: z.array(policy, { error: 'expected a list of policies' }).min(1, { error: 'expected at least one policy' }).max(MAX_POLICIES, { error: `expected at most ${MAX_POLICIES} policies` }).prefault(policies),
      selectPolicy: z.enum(['Max', 'Min', 'Disabled'], { error: 'expected "Max", "Min" or "Disabled"' }).default('Max'),
      /** HPA's default tolerance; the usage ratio within [1 − t, 1 + t] keeps the count. */
      tolerance: z.number({ error: 'expected a number' }).min(0, { error: 'expected a number ≥ 0' }).max(1, { error: 'expected a number ≤ 1' }).default(0.1),
    })
    .strict();

const behavior = z
  .object({
    scaleUp: scalingRules('0s', DEFAULT_UP_POLICIES).optional(),
    /** HPA's controller fills an unset down window from its flag, 5 minutes. */
    scaleDown: scalingRules('5m', DEFAULT_DOWN_POLICIES).optional(),
  })
  .strict();

const schedule = z
  .object({
    cron: nonEmpty,
    duration: durationWithin('0s', 1_000, 7 * 24 * HOUR_MS, 'a duration from 1s to 168h'),
    timezone: nonEmpty.default('UTC'),
    minScale: count(0, MAX_REPLICAS).optional(),
    maxScale: count(0, MAX_REPLICAS).optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    try {
      CronExpressionParser.parse(s.cron, { tz: s.timezone }).next();
    } catch (err) {
      ctx.addIssue({ code: 'custom', path: ['cron'], message: `invalid cron expression or time zone "${s.timezone}": ${(err as Error).message}` });
    }
    if (s.minScale === undefined && s.maxScale === undefined) ctx.addIssue({ code: 'custom', path: [], message: 'expected minScale, maxScale or both' });
    if (s.minScale !== undefined && s.maxScale !== undefined && s.minScale > s.maxScale) ctx.addIssue({ code: 'custom', path: ['minScale'], message: 'expected minScale ≤ maxScale' });
  });

/** The policy keys a target takes beside `load`. */
export const policyFields = {
  fallback: fallback.optional(),
  /** Queue and push targets without an activator go to zero this long after the last active observation. */
  cooldown: durationWithin('5m', 0, 24 * HOUR_MS, 'a duration from 0s to 24h'),
  behavior: behavior.optional(),
  /** Knative scale-down-delay: at most 1h, in 2-second buckets. */
  scaleDownDelay: durationWithin('0s', 0, HOUR_MS, 'a duration from 0s to 1h'),
  initialScale: count(0, MAX_REPLICAS).default(1),
  activationScale: count(1, MAX_REPLICAS).default(1),
  schedules: z.array(schedule, { error: 'expected a list of schedules' }).max(MAX_SCHEDULES, { error: `expected at most ${MAX_SCHEDULES} schedules` }).default([]),
};

/** A target's policy keys as the scaler's settings take them (src/scaler/read/policy-settings.ts): its load as a list of sources. */
export type PolicyConfig = { load?: LoadSpecConfig } & { [K in keyof typeof policyFields]: z.output<(typeof policyFields)[K]> };
/** A target's `load`, whichever form it was written in: a list of named sources and how they combine. */
export interface LoadSpecConfig {
  sources: NamedSourceConfig[];
  combine: z.output<typeof combine>;
  pollInterval?: number | undefined;
}
/** One configured source: the shared keys (`source`, `name`, `targetPerReplica`, `metricType`, `activationThreshold`, `pollInterval`) and its kind's own. */
export interface NamedSourceConfig {
  source: SourceKindName;
  name: string;
  targetPerReplica: number;
  metricType: MetricType;
  activationThreshold: number;
  pollInterval?: number | undefined;
  /** The kind's own keys, read by the kind's module. */
  [key: string]: unknown;
}
