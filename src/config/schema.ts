/**
 * The configuration file's schema. Every field is declared once with its default and its
 * error message; the parsed result is plain data with durations in milliseconds and rates
 * parsed, so nothing downstream re-parses strings.
 */
import { z } from 'zod';
import { boundedMs, count, duration, MAX_DURATION_MS, nonEmpty, optionalDuration, parsedString, rate } from './fields.js';
import { parseDuration } from './duration.js';
import { loadSpec, policyFields } from './policy-schema.js';
import { isQueueDriven, loadSources } from '../load/sources.js';
import { kindOf } from '../load/registry.js';
export { DEFAULT_POLL_INTERVAL_MS, MIN_POLL_INTERVAL_MS } from './policy-schema.js';
import { poolTargetRef, scaleInSchema, warmSchema } from './pool-sizing.js';
import { isLoopbackHost } from './loopback.js';
// Replicas of a target and machines of a pool.
import { MAX_REPLICAS } from '../limits.js';
import { resourceOf, type KubernetesScaleTargetRef } from '../kubernetes/scale-target-ref.js';

/** Pools, and targets, in one file. */
const MAX_OBJECTS = 1_000;

export { MAX_DURATION_MS };

const objectName = z
  .string({ error: 'expected a name' })
  .regex(/^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/, {
    error: 'expected 1–63 letters, digits, ".", "_" or "-", starting and ending with a letter or digit',
  });

const storage = z
  .object({
    connection: nonEmpty.optional(),
    accountName: z
      .string({ error: 'expected a storage account name' })
      .regex(/^[a-z0-9]{3,24}$/, { error: 'expected 3–24 lowercase letters or digits' })
      .optional(),
    clientId: nonEmpty.optional(),
    tableServiceUri: z.url({ error: 'expected a URL' }).optional(),
    queueServiceUri: z.url({ error: 'expected a URL' }).optional(),
    prefix: z
      .string({ error: 'expected a string' })
      .regex(/^[a-z][a-z0-9]{2,19}$/, {
        error: 'expected 3–20 lowercase letters or digits starting with a letter (it names tables and queues)',
      })
      .default('drover'),
  })
  .strict()
  .refine((s) => !(s.connection && s.accountName), {
    error: 'set either connection or accountName, not both',
  });

const azure = z
  .object({
    subscriptionId: z.string({ error: 'expected a subscription id' }).regex(/^[0-9a-fA-F-]{36}$/, {
      error: 'expected a subscription GUID',
    }),
    credential: z
      .enum(['default', 'managed-identity', 'dev'], {
        error: 'expected one of "default", "managed-identity", "dev"',
      })
      .default('default'),
    managedIdentityClientId: nonEmpty.optional(),
    resourceManagerEndpoint: z.url({ error: 'expected a URL' }).default('https://management.azure.com'),
    caFile: nonEmpty.optional(),
    devToken: nonEmpty.optional(),
    /** Per ARM request, each page of a listing included. */
    requestTimeout: duration('30s', { positive: true }),
  })
  .strict();

const kubernetes = z
  .object({
    kubeconfig: nonEmpty.optional(),
    context: nonEmpty.optional(),
    inCluster: z.boolean({ error: 'expected true or false' }).optional(),
    auth: z.enum(['azure'], { error: 'expected "azure"' }).optional(),
    /** Per Kubernetes API request. */
    requestTimeout: duration('10s', { positive: true }),
  })
  .strict()
  .refine((k) => !(k.inCluster && k.kubeconfig), { error: 'set either kubeconfig or inCluster, not both' });

const scaleSetRef = z
  .object({ resourceGroup: nonEmpty, name: nonEmpty })
  .strict();

/** The jitter when none is set: a tenth of the ttl, so a fleet's caches listed together do not all expire in one pass. */
export const DEFAULT_JITTER_FRACTION = 0.1;
const instanceCache = z
  .object({
    ttl: duration('5m'),
    jitter: parsedString('expected a duration such as "90s", "5m" or "1h30m"', (text) => boundedMs(text, parseDuration(text), false)).optional(),
  })
  .strict()
  .transform((c) => ({ ttl: c.ttl, jitter: c.jitter ?? Math.floor(c.ttl * DEFAULT_JITTER_FRACTION) }))
  .prefault({});

const pool = z
  .object({
    name: objectName,
    scaleSet: scaleSetRef,
    maxCount: count(0, MAX_REPLICAS).default(50),
    chunkSize: count(1, MAX_REPLICAS).default(20),
    reconcileRate: rate('1m,1'),
    creationRate: rate('5s,1'),
    /** Scale-in deletes, one token per VM. */
    deletionRate: rate('5s,10'),
    scaleIn: scaleInSchema,
    warm: warmSchema,
    /** Also caps how many VMs a listing reads (pages stop there). */
    instanceLimit: count(1, MAX_REPLICAS).default(1000),
    instanceCache,
    enableFastDeleteOnFailedProvisioning: z.boolean({ error: 'expected true or false' }).default(false),
    enableDetailedCSEMessage: z.boolean({ error: 'expected true or false' }).default(false),
    enableVmssFlexNodes: z.boolean({ error: 'expected true or false' }).default(false),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.instanceCache.jitter > p.instanceCache.ttl) {
      ctx.addIssue({ code: 'custom', path: ['instanceCache', 'jitter'], message: 'expected a jitter no longer than instanceCache.ttl' });
    }
  });

const kubernetesKindRef = z
  .object({
    kind: z.enum(['Deployment', 'StatefulSet'], { error: 'expected "Deployment", "StatefulSet" or "Pool"' }),
    apiVersion: z.literal('apps/v1', { error: 'expected "apps/v1"' }).optional(),
    namespace: nonEmpty.default('default'),
    name: nonEmpty,
  })
  .strict();

const customScaleRef = z
  .object({
    group: nonEmpty,
    version: nonEmpty,
    plural: nonEmpty,
    namespace: nonEmpty.default('default'),
    name: nonEmpty,
  })
  .strict();

/**
 * The retired kind wrote `sku.capacity` straight, so Azure chose which VMs went: refused, with
 * the pool form that replaces it, filled in with the scale set it named.
 */
function retiredScaleSetKind(v: Record<string, unknown>): string {
  const text = (x: unknown, fallback: string) => (typeof x === 'string' && x !== '' ? x : fallback);
  return (
    'the VirtualMachineScaleSet kind is retired: size a scale set through a pool — ' +
    `pools: [{ name: workers, scaleSet: { resourceGroup: ${text(v.resourceGroup, 'rg')}, name: ${text(v.name, 'vmss')} } }] and scaleTargetRef: { kind: Pool, name: workers }`
  );
}

const scaleTargetRef = z.unknown().transform((value, ctx) => {
  const v = (value ?? {}) as Record<string, unknown>;
  if (v.kind === 'VirtualMachineScaleSet') {
    ctx.addIssue({ code: 'custom', message: retiredScaleSetKind(v), path: [] });
    return z.NEVER;
  }
  const schema = v.kind === 'Pool' ? poolTargetRef : 'kind' in v ? kubernetesKindRef : customScaleRef;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  }
  return parsed.data;
});

/** Knative's rate limits: both must exceed 1 (a rate of 1 would forbid any change). */
const scaleRate = (fallback: number) =>
  z
    .number({ error: 'expected a number' })
    .gt(1, { error: 'expected a number > 1' })
    .max(1000, { error: 'expected a number ≤ 1000' })
    .default(fallback);

const target = z
  .object({
    name: objectName,
    scaleTargetRef,
    minScale: count(0, MAX_REPLICAS).default(0),
    maxScale: count(0, MAX_REPLICAS).default(0),
    scaleToZero: z
      .object({
        enabled: z.boolean({ error: 'expected true or false' }).default(true),
        /** Also the window the load is averaged over. */
        stableWindow: duration('60s'),
        gracePeriod: duration('30s'),
      })
      .strict()
      .prefault({}),
    activationTimeout: duration('10m10s'),
    activator: z
      .object({
        probeUrl: z.url({ error: 'expected a URL' }),
        probePeriod: duration('1s', { positive: true }),
        probeTimeout: duration('45s', { positive: true }),
      })
      .strict()
      .optional(),
    load: loadSpec.optional(),
    fallback: policyFields.fallback,
    cooldown: policyFields.cooldown,
    behavior: policyFields.behavior,
    scaleDownDelay: policyFields.scaleDownDelay,
    initialScale: policyFields.initialScale,
    activationScale: policyFields.activationScale,
    schedules: policyFields.schedules,
    /**
     * `adaptive` (default): capacity for the load that can arrive within the start-up delay, held to
     * a budget of unserved demand, falls on evidence (docs/scaling.md); `knative`: the seed's KPA
     * rules exactly.
     */
    policy: z.enum(['adaptive', 'knative'], { error: 'expected adaptive or knative' }).default('adaptive'),
    /** The adaptive policy's budget: the share of its demand (percent, averaged over time: SPEC's θU) the target may leave unserved. */
    headroom: z
      .object({
        underProvisioning: z
          .number({ error: 'expected a number' })
          .gt(0, { error: 'expected a percentage > 0' })
          .max(50, { error: 'expected a percentage ≤ 50' })
          .default(1),
      })
      .strict()
      .prefault({}),
    /**
     * The adaptive policy's forecast from the load a day and a week ago: `off` (default) keeps
     * nothing of it, `observe` computes and shows its floor and changes no scale, `floor` raises
     * to it (docs/scaling.md, "Forecast").
     */
    forecast: z
      .object({ mode: z.enum(['off', 'observe', 'floor'], { error: 'expected off, observe or floor' }).default('off') })
      .strict()
      .prefault({}),
    /** As `drover pause TARGET`, and stronger: `drover resume` does not lift it. */
    paused: z.boolean({ error: 'expected true or false' }).optional(),
    /** At most this many times the ready replicas in one step up (Knative max-scale-up-rate). */
    maxScaleUpRate: scaleRate(1000),
    /** At most ready ÷ this in one step down (Knative max-scale-down-rate). */
    maxScaleDownRate: scaleRate(2),
    panic: z
      .object({
        enabled: z.boolean({ error: 'expected true or false' }).default(false),
        /** Default: a tenth of the stable window, as Knative's panic-window-percentage 10. */
        window: optionalDuration,
        /** Panic when the panic window asks for this percentage of the ready replicas. */
        threshold: z
          .number({ error: 'expected a number' })
          .min(110, { error: 'expected a percentage ≥ 110' })
          .max(1000, { error: 'expected a percentage ≤ 1000' })
          .default(200),
      })
      .strict()
      .prefault({}),
    /**
     * How long the reconcile that wakes a target from zero waits for its first ready replica,
     * to measure the activation latency closely. Default 5s for Kubernetes targets, 0s (poll on
     * later reconciles only) for scale sets, whose VMs take minutes.
     */
    activationWatch: optionalDuration,
  })
  .strict()
  .superRefine((t, ctx) => {
    const window = t.panic.window;
    if (window !== undefined && (window <= 0 || window > t.scaleToZero.stableWindow)) {
      ctx.addIssue({ code: 'custom', path: ['panic', 'window'], message: 'expected a duration > 0 and no longer than scaleToZero.stableWindow' });
    }
    if (t.scaleToZero.stableWindow <= 0) {
      ctx.addIssue({ code: 'custom', path: ['scaleToZero', 'stableWindow'], message: 'expected a duration > 0: load is averaged over it' });
    }
    if (t.policy === 'knative' && t.forecast.mode !== 'off') {
      ctx.addIssue({ code: 'custom', path: ['forecast', 'mode'], message: 'expected off with policy: knative: the forecast is a rule of the adaptive policy' });
    }
  });

/**
 * Every check but whether the sections that reach Azure and Kubernetes are there: what a tool that
 * reaches neither (`drover replay`) loads.
 */
export const offlineConfigSchema = z
  .object({
    storage: storage.optional(),
    azure: azure.optional(),
    kubernetes: kubernetes.optional(),
    pools: z.array(pool, { error: 'expected a list of pools' }).max(MAX_OBJECTS, { error: `expected at most ${MAX_OBJECTS} pools` }).default([]),
    targets: z.array(target, { error: 'expected a list of targets' }).max(MAX_OBJECTS, { error: `expected at most ${MAX_OBJECTS} targets` }).default([]),
  })
  .strict()
  .superRefine((cfg, ctx) => {
    const seen = new Map<string, string>();
    cfg.pools.forEach((p, i) => {
      const key = `pool/${p.name}`;
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: ['pools', i, 'name'], message: `duplicate pool name "${p.name}" (also ${seen.get(key)})` });
      seen.set(key, `pools[${i}]`);
    });
    cfg.targets.forEach((t, i) => {
      const key = `target/${t.name}`;
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: ['targets', i, 'name'], message: `duplicate target name "${t.name}" (also ${seen.get(key)})` });
      seen.set(key, `targets[${i}]`);
      // A queue holds its work while the target sleeps: queue and push targets need no activator.
      if (t.scaleToZero.enabled && t.minScale === 0 && !t.activator && !isQueueDriven(t.load)) {
        ctx.addIssue({
          code: 'custom',
          path: ['targets', i, 'activator'],
          message: 'required when scaleToZero.enabled is true and minScale is 0: Drover only scales to zero behind an activator',
        });
      }
      const targetKind = (t.scaleTargetRef as { kind?: string }).kind === 'Pool' ? 'pool' : 'kubernetes';
      for (const { source, path } of loadSources(t.load)) {
        for (const issue of kindOf(source.source).checkTarget?.(source, { targetKind }) ?? []) {
          ctx.addIssue({ code: 'custom', path: ['targets', i, ...path, ...issue.path], message: issue.message });
        }
      }
      if (loadSources(t.load).filter((s) => kindOf(s.source.source).traits.delivery === 'pushed').length > 1) {
        ctx.addIssue({ code: 'custom', path: ['targets', i, 'load', 'sources'], message: 'expected at most one push source: a pushed value names no source' });
      }
    });
    if (cfg.azure?.credential === 'dev' && !isLoopbackHost(new URL(cfg.azure.resourceManagerEndpoint).hostname)) {
      ctx.addIssue({
        code: 'custom',
        path: ['azure', 'credential'],
        message: `"dev" sends a static token and is only allowed for a loopback resourceManagerEndpoint, not ${cfg.azure.resourceManagerEndpoint}`,
      });
    }
    // One scale set, one owner: two owners would each manage every VM, and fight.
    const owners = new Map<string, string>();
    const claim = (key: string, entry: string, path: (string | number)[], what: string) => {
      const other = owners.get(key);
      if (other) ctx.addIssue({ code: 'custom', path, message: `${what} is also managed by ${other}: ${entry} and ${other} would fight over it, give it one owner` });
      else owners.set(key, entry);
    };
    // Azure compares resource groups and names case-insensitively.
    const scaleSetKey = (r: { resourceGroup: string; name: string }) => `vmss/${r.resourceGroup.toLowerCase()}/${r.name.toLowerCase()}`;
    cfg.pools.forEach((p, i) => claim(scaleSetKey(p.scaleSet), `pools[${i}] ("${p.name}")`, ['pools', i, 'scaleSet'], `scale set ${p.scaleSet.resourceGroup}/${p.scaleSet.name}`));
    cfg.targets.forEach((t, i) => {
      const ref = t.scaleTargetRef as Record<string, string | undefined>;
      const entry = `targets[${i}] ("${t.name}")`;
      const path = ['targets', i, 'scaleTargetRef'];
      if (ref.kind === 'Pool') {
        if (!cfg.pools.some((p) => p.name === ref.name)) ctx.addIssue({ code: 'custom', path: [...path, 'name'], message: `names no pool: add a pool named "${ref.name}", or name one of ${cfg.pools.map((p) => `"${p.name}"`).join(', ') || 'the pools (there are none)'}` });
        claim(`pool/${ref.name}`, entry, path, `pool "${ref.name}"`);
      } else {
        // A Deployment named by kind and by apps/v1 deployments is one object: key both the same.
        const { group, plural, namespace, name } = resourceOf(ref as unknown as KubernetesScaleTargetRef);
        claim(`k8s/${plural}.${group}/${namespace}/${name}`, entry, path, `workload ${ref.kind ?? `${plural}.${group}`} ${namespace}/${name}`);
      }
    });
  });

/** The sections a pass uses to reach each pool and target. */
function requireConnections(cfg: z.output<typeof offlineConfigSchema>, ctx: z.RefinementCtx): void {
  if (cfg.pools.length > 0 && !cfg.azure) {
    ctx.addIssue({ code: 'custom', path: ['azure'], message: 'required when pools are configured' });
  }
  cfg.targets.forEach((t, i) => {
    const kind = (t.scaleTargetRef as { kind?: string }).kind;
    const usesScaleSet = kind === 'Pool';
    if (usesScaleSet && !cfg.azure) {
      ctx.addIssue({ code: 'custom', path: ['targets', i, 'scaleTargetRef'], message: 'a Pool target needs the azure section' });
    }
    if (!usesScaleSet && !cfg.kubernetes) {
      ctx.addIssue({ code: 'custom', path: ['targets', i, 'scaleTargetRef'], message: 'a Kubernetes target needs the kubernetes section' });
    }
  });
}

export const configSchema = offlineConfigSchema.superRefine(requireConnections);

export type DroverConfig = z.output<typeof configSchema>;
export type PoolConfig = DroverConfig['pools'][number];
export type TargetConfig = DroverConfig['targets'][number];
export type StorageConfig = NonNullable<DroverConfig['storage']>;
export type AzureConfig = NonNullable<DroverConfig['azure']>;
export type KubernetesConfig = NonNullable<DroverConfig['kubernetes']>;
export type ScaleTargetRef = TargetConfig['scaleTargetRef'];
export type { LoadSpecConfig, NamedSourceConfig } from './policy-schema.js';
