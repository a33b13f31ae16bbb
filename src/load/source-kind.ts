/**
 * The seam every load source kind plugs into (as a KEDA scaler is one file): a kind is ONE
 * module exporting one `SourceKind`, listed by one line in `registry.ts`. Everything else — the
 * configuration's union of sources, config checks, the one collection loop, status, replay, the
 * deploy checks (`scripts/deploy-checks.mjs`, given the compiled registry) and the
 * least-privilege test of the grants — takes what it needs from the registry, never from a
 * `switch` on the kind. (The post-provision hook and `scripts/kubernetes-rbac.mjs` take the
 * grants from load/grants.ts `sourceGrants`, compiled: the Azure roles through
 * `scripts/lib/source-assignments.mjs`, the Kubernetes rules into the namespace's Role.)
 *
 * A kind owns only its own keys. The seam adds the keys every source shares, so a kind never
 * declares them: `source` (the kind's name, the union's discriminator), `name` (in
 * `load.sources`), `targetPerReplica`, `activationThreshold`, `metricType` (unless the kind fixes
 * it) and, for a polled kind, `pollInterval`.
 *
 * `open` is given its configuration (already parsed by `keys`) and the ports it may use; it
 * returns a reader whose `read` gives a reading or a failure and never throws or rejects. A read
 * keeps its own deadline (the kind's timeout) and size limit: a silent or huge answer fails only
 * its source, within the target's pass.
 */
import type { z } from 'zod';
import type { TokenCredential } from '@azure/core-auth';
import type { KubernetesScaleTargetRef } from '../kubernetes/scale-target-ref.js';

/**
 * The name a one-source `load` goes by (in formulas, the sample row, the record's health). Here,
 * with no import of the configuration's schema, so that status and the pass can name it without
 * loading the schema (and the cron parser its schedules bring).
 */
export const SINGLE_SOURCE_NAME = 'load';

/**
 * One read of a source: a value ≥ 0, or why there is none. `measuredAt`: when the data was
 * measured, for a kind whose data lags the read (Azure Monitor's newest counted bucket's end);
 * status shows its age. The sample is still dated when read (the stable window would drop it).
 */
export type SourceReading = { ok: true; value: number; measuredAt?: number } | { ok: false; error: string };

/**
 * What a value means (KEDA's metric target types): `total` — the whole load, desired =
 * ⌈value ÷ targetPerReplica⌉ (AverageValue); `perReplica` — an average over the ready replicas
 * (CPU %, latency), desired = ⌈ready × value ÷ targetPerReplica⌉ (Value).
 */
export type MetricType = 'total' | 'perReplica';

export interface SourceTraits {
  /** `polled`: read every `load.pollInterval`; `pushed`: its values arrive with reconcile messages (`push`). */
  delivery: 'polled' | 'pushed';
  /**
   * Its work waits while the target sleeps (a queue, a Service Bus entity, a pusher): a target
   * whose every source holds work may sleep at zero without an activator and wakes on an active source.
   */
  holdsWork: boolean;
  /**
   * `gauge`: its newest value holds until the next one (a pushed value; an empty window reads it);
   * `total`: each reading counts for its instant only (an empty window is no evidence).
   */
  sampling: 'gauge' | 'total';
  /** What a value means when `metricType` is not given; `fixed`: giving `metricType` is a config error (`resource`). */
  metricType: { default: MetricType; fixed: boolean };
  /**
   * The shortest period worth reading it at (Azure Monitor: 60 s). The collection loop does not
   * read the source while its newest stored sample is younger (the samples row is shared, so it
   * holds across processes); its last value stands meanwhile. A shorter `pollInterval` is raised
   * to it (sources.ts `pollIntervalOf`).
   */
  minPollIntervalMs?: number;
}

/** Where a target's scale lives, for a kind whose default resource is the target itself (azureMonitor, resource). */
export type SourceTargetRef =
  | { kind: 'pool'; scaleSet: { subscriptionId: string | undefined; resourceGroup: string; name: string } }
  | { kind: 'kubernetes'; ref: KubernetesScaleTargetRef };

/**
 * The ports a reader may use; each kind takes only those it needs. Everything here is I/O or
 * environment, so the kinds' own logic stays pure and testable against simulators.
 */
export interface SourcePorts {
  /** Drover's Azure identity (created on first use). */
  credential(): TokenCredential;
  /** An app setting (a connection string or token named by `…Setting`), never the configuration file. */
  setting(name: string): string | undefined;
  /** `azure.subscriptionId` and `azure.resourceManagerEndpoint` of the configuration. */
  azure: { subscriptionId: string | undefined; resourceManagerEndpoint: string };
  /** The target the source sizes. */
  target: { name: string; ref: SourceTargetRef };
  /**
   * The cluster reads of a kind reading pods or metrics.k8s.io (`resource`: its PodMetricsApi,
   * the runtime's `podMetrics`, loaded on first use); absent without a kubernetes section.
   */
  kubernetes?: () => Promise<unknown>;
  /** Epoch ms; injected so tests run on a fake clock. */
  now(): number;
}

export interface SourceReader {
  /** Never throws or rejects: every failure is `{ ok: false, error }` naming the source's endpoint or query. */
  read(signal: AbortSignal): Promise<SourceReading>;
}

/**
 * Where a grant applies: a resource named in the configuration, or one the deploy tool finds
 * (`az resource list --resource-type T`, the one whose `property` equals `equals`), then `suffix`
 * appended (a queue below its account).
 */
export type GrantScope = { resourceId: string } | { lookup: { resourceType: string; property: string; equals: string }; suffix?: string };

/** A role Drover's identity needs for a source, scoped to the resource the source reads. */
export type SourceGrant =
  | { kind: 'azureRole'; roleId: string; roleName: string; scope: GrantScope; why: string }
  | { kind: 'kubernetesRole'; apiGroup: string; resources: string[]; verbs: string[]; namespace: string; why: string };

/** A problem with a source's configuration that needs the whole target (a Pool target, a missing default). */
export interface SourceIssue {
  /** Below the source's own path (`['resourceId']`); [] for the source itself. */
  path: (string | number)[];
  message: string;
}

/** What a config check knows of the target around the source. */
export interface SourceTargetContext {
  targetKind: 'pool' | 'kubernetes';
}

export interface SourceKind<Name extends string = string, Config = unknown> {
  /** The `source:` value in the configuration (`http`, `prometheus`, `serviceBus`, …). */
  name: Name;
  /** Its own keys (z.object shape); the seam adds the shared ones and makes the object strict. */
  keys: z.ZodRawShape;
  /** Checks across its keys (`queueName` with `topicName`), with paths below the source. */
  check?(config: Config): SourceIssue[];
  /** Checks against the target (`resource` is refused on a Pool target). */
  checkTarget?(config: Config, target: SourceTargetContext): SourceIssue[];
  traits: SourceTraits;
  /** A reader for one configured source; absent for a `pushed` kind (its values come with reconcile messages). */
  open?(config: Config, ports: SourcePorts): SourceReader;
  /** One line for status and logs: where it reads (`prometheus http://prom:9090 sum(up)`); never a secret. */
  describe(config: Config): string;
  /** Deploy checks: a credential in the file is refused (`{ path, message }` below the source). */
  secrets?(config: Config): SourceIssue[];
  /** The least-privileged grants it needs, each scoped to the resource it reads. */
  grants?(config: Config, target: SourceTargetRef): SourceGrant[];
}

/** A kind whose config type is inferred from its keys; `defineKind` keeps `open` and `keys` in step. */
export function defineKind<Name extends string, Shape extends z.ZodRawShape>(
  kind: Omit<SourceKind<Name, z.output<z.ZodObject<Shape>>>, 'keys'> & { keys: Shape },
): SourceKind<Name, z.output<z.ZodObject<Shape>>> {
  return kind;
}
