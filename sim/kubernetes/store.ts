/**
 * The simulator's objects: workloads and other scalable resources with a desired replica count
 * and a ready count that follows it after a delay, measured on an injectable clock. Readiness is
 * settled lazily on each access, so a manual clock needs no timers and the real clock no
 * background work.
 */
import type { Clock } from '../../src/clock.js';
import { resourceOf, type KubernetesScaleTargetRef, type ScalableResourceRef } from '../../src/kubernetes/scale-target-ref.js';

export interface SimObjectInit {
  /** spec.replicas; leave out for an object that sets none. */
  replicas?: number;
  /** Ready replicas, held until the spec changes; default: the replicas (1 when unset). */
  readyReplicas?: number;
  /** How long ready replicas take to follow a new spec; default: the simulator's. */
  readyDelayMs?: number;
  /** `kind` reported for a generic resource. */
  kind?: string;
}

export interface SimObject {
  resource: ScalableResourceRef;
  kind: string;
  uid: string;
  resourceVersion: number;
  generation: number;
  specReplicas: number | undefined;
  readyReplicas: number;
  readyDelayMs: number | undefined;
  rollout: { replicas: number; at: number } | undefined;
}

const KINDS: Record<string, string> = { deployments: 'Deployment', statefulsets: 'StatefulSet' };

export function keyOf(r: ScalableResourceRef): string {
  return [r.group, r.version, r.plural, r.namespace, r.name].join('/');
}

export class SimObjectStore {
  private readonly objects = new Map<string, SimObject>();
  private nextUid = 1;

  constructor(
    private readonly clock: Clock,
    /** Default delay for ready replicas to follow the spec. */
    public readyDelayMs = 0,
  ) {}

  add(ref: KubernetesScaleTargetRef, init: SimObjectInit = {}): SimObject {
    const resource = resourceOf(ref);
    const object: SimObject = {
      resource,
      kind: init.kind ?? KINDS[resource.plural] ?? 'Scalable',
      uid: `00000000-0000-4000-8000-${String(this.nextUid++).padStart(12, '0')}`,
      resourceVersion: 1,
      generation: 1,
      specReplicas: init.replicas,
      readyReplicas: init.readyReplicas ?? init.replicas ?? 1,
      readyDelayMs: init.readyDelayMs,
      rollout: undefined,
    };
    this.objects.set(keyOf(resource), object);
    return object;
  }

  remove(ref: KubernetesScaleTargetRef): boolean {
    return this.objects.delete(keyOf(resourceOf(ref)));
  }

  /** The object with its readiness brought up to the clock, or undefined. */
  get(ref: KubernetesScaleTargetRef): SimObject | undefined {
    const object = this.objects.get(keyOf(resourceOf(ref)));
    if (object) this.settle(object);
    return object;
  }

  setSpecReplicas(object: SimObject, replicas: number): void {
    if (object.specReplicas === replicas) return;
    object.specReplicas = replicas;
    object.generation++;
    object.resourceVersion++;
    this.startRollout(object);
  }

  /** Scripts readiness directly; a rollout in progress still completes later. */
  setReadyReplicas(object: SimObject, ready: number): void {
    object.readyReplicas = ready;
    object.resourceVersion++;
  }

  private startRollout(object: SimObject): void {
    const replicas = object.specReplicas ?? 1;
    object.rollout = { replicas, at: this.clock.now() + (object.readyDelayMs ?? this.readyDelayMs) };
    this.settle(object);
  }

  private settle(object: SimObject): void {
    if (object.rollout && this.clock.now() >= object.rollout.at) {
      object.readyReplicas = object.rollout.replicas;
      object.rollout = undefined;
      object.resourceVersion++;
    }
  }
}
