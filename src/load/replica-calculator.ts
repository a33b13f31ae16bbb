/**
 * HPA's replica calculator for a resource utilization target (kubernetes/kubernetes
 * pkg/controller/podautoscaler/replica_calculator.go, GetResourceReplicas), pure: the pods, their
 * metrics, the scale's current replicas and a clock in; the replicas wanted, or why there is no
 * answer, out. The ratio alone (utilization ÷ target × ready) would scale up on pods still
 * starting and down on pods whose metrics have not arrived; these rules are what HPA does instead.
 */

/** HPA's default --horizontal-pod-autoscaler-tolerance. */
export const TOLERANCE = 0.1;
/** HPA's --horizontal-pod-autoscaler-cpu-initialization-period. */
export const CPU_INITIALIZATION_PERIOD_MS = 5 * 60_000;
/** HPA's --horizontal-pod-autoscaler-initial-readiness-delay. */
export const INITIAL_READINESS_DELAY_MS = 30_000;

export type ResourceName = 'cpu' | 'memory';

/** One container's request of the resource: millicores or bytes; undefined when it has none. */
export interface ContainerRequest {
  name: string;
  request: number | undefined;
}

/** What the calculator reads of a pod (its spec and status, reduced). */
export interface PodFacts {
  name: string;
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
  deleting: boolean;
  /** Epoch ms of status.startTime. */
  startedAt: number | undefined;
  /** The Ready condition: its status and lastTransitionTime (epoch ms); undefined when absent. */
  ready: { status: boolean; since: number } | undefined;
  /** Its containers and restartable init (sidecar) containers, which count towards its request. */
  containers: ContainerRequest[];
}

/** One pod's usage from metrics.k8s.io: millicores or bytes, sampled at `at` over `windowMs`. */
export interface PodUsage {
  value: number;
  at: number;
  windowMs: number;
}

export interface ReplicaInput {
  resource: ResourceName;
  /** Percent of the requests (HPA's averageUtilization). */
  targetUtilization: number;
  /** The scale's spec.replicas. */
  currentReplicas: number;
  pods: readonly PodFacts[];
  usage: ReadonlyMap<string, PodUsage>;
  now: number;
}

export type ReplicaAnswer = { ok: true; replicas: number; utilization: number } | { ok: false; error: string };

type Group = 'ready' | 'unready' | 'missing' | 'ignored';

/** HPA's groupPods for one pod. */
export function groupOf(pod: PodFacts, usage: PodUsage | undefined, resource: ResourceName, now: number): Group {
  if (pod.deleting || pod.phase === 'Failed' || pod.phase === 'Succeeded') return 'ignored';
  if (pod.phase === 'Pending') return 'unready';
  if (!usage) return 'missing';
  if (resource !== 'cpu') return 'ready';
  const { ready, startedAt } = pod;
  if (!ready || startedAt === undefined) return 'unready';
  if (startedAt + CPU_INITIALIZATION_PERIOD_MS > now) {
    // Still starting: unready while not ready, or sampled before a whole window since it became ready.
    return !ready.status || usage.at < ready.since + usage.windowMs ? 'unready' : 'ready';
  }
  // Past its start: unready only if it is not ready and never was within the delay after starting.
  return !ready.status && startedAt + INITIAL_READINESS_DELAY_MS > ready.since ? 'unready' : 'ready';
}

/** A pod's request of the resource: the sum over its containers; a container without one fails naming it. */
export function requestOf(pod: PodFacts, resource: ResourceName): { ok: true; value: number } | { ok: false; error: string } {
  let total = 0;
  for (const c of pod.containers) {
    if (c.request === undefined) return { ok: false, error: `missing ${resource} request in container ${c.name} of pod ${pod.name}` };
    total += c.request;
  }
  return { ok: true, value: total };
}

/** HPA's GetResourceUtilizationRatio: integer percent of the requests, over the pods given a value. */
function utilizationOf(values: ReadonlyMap<string, number>, requests: ReadonlyMap<string, number>): number | undefined {
  let used = 0;
  let requested = 0;
  for (const [name, value] of values) {
    const request = requests.get(name);
    if (request === undefined) continue;
    used += value;
    requested += request;
  }
  return requested === 0 ? undefined : Math.trunc((used * 100) / requested);
}

const within = (ratio: number) => Math.abs(1 - ratio) <= TOLERANCE;

export function resourceReplicas(input: ReplicaInput): ReplicaAnswer {
  const { pods, usage, resource, now, currentReplicas, targetUtilization } = input;
  if (pods.length === 0) return { ok: false, error: 'no pods match the scale\'s selector' };
  const groups = new Map<Group, string[]>([['ready', []], ['unready', []], ['missing', []], ['ignored', []]]);
  for (const pod of pods) groups.get(groupOf(pod, usage.get(pod.name), resource, now))!.push(pod.name);
  const requests = new Map<string, number>();
  for (const pod of pods) {
    const request = requestOf(pod, resource);
    if (!request.ok) return request;
    requests.set(pod.name, request.value);
  }
  const values = new Map(groups.get('ready')!.map((name) => [name, usage.get(name)!.value]));
  if (values.size === 0) return { ok: false, error: `no ${resource} metrics for any ready pod (pods may be unready)` };
  const utilization = utilizationOf(values, requests);
  if (utilization === undefined) return { ok: false, error: `the pods' ${resource} requests are 0` };
  const ratio = utilization / targetUtilization;
  const unready = groups.get('unready')!;
  const missing = groups.get('missing')!;
  const rebalanceUnready = unready.length > 0 && ratio > 1;
  if (!rebalanceUnready && missing.length === 0) {
    return { ok: true, utilization, replicas: within(ratio) ? currentReplicas : Math.ceil(ratio * values.size) };
  }
  // A pod without metrics: at 100 % of its request (or the target, when above 100) on a scale-down, at 0 on a scale-up.
  const fallback = Math.max(100, targetUtilization);
  if (ratio < 1) for (const name of missing) values.set(name, (requests.get(name)! * fallback) / 100);
  else if (ratio > 1) for (const name of missing) values.set(name, 0);
  if (rebalanceUnready) for (const name of unready) values.set(name, 0);
  const adjusted = utilizationOf(values, requests)! / targetUtilization;
  // Too small a change, or the unready and missing pods flip its direction: no change.
  if (within(adjusted) || (ratio < 1 && adjusted > 1) || (ratio > 1 && adjusted < 1)) return { ok: true, utilization, replicas: currentReplicas };
  const replicas = Math.ceil(adjusted * values.size);
  if ((adjusted < 1 && replicas > currentReplicas) || (adjusted > 1 && replicas < currentReplicas)) return { ok: true, utilization, replicas: currentReplicas };
  return { ok: true, utilization, replicas };
}
