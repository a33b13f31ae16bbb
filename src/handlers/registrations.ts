/**
 * Drover's four functions as data: name, trigger, what the trigger binds to, and the handler.
 * The Functions entry (functions/*.ts) registers each with @azure/functions; the local host
 * (src/host/) runs the timer and the queue ones itself. Only types come from @azure/functions
 * here, so the local host never wakes its registration code, which outside the Functions host
 * switches the package to "test mode" and says so on the console.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext, Timer } from '@azure/functions';
import type { Runtime } from '../runtime/runtime.js';
import { onProbeMessage, probeLane } from './probe-queue.js';
import { onReconcileMessage, reconcileLane } from './reconcile-queue.js';
import { onReconcileTimer } from './reconcile-timer.js';
import { onStatusRequest } from './status-http.js';

export interface TimerRegistration {
  name: string;
  trigger: 'timer';
  /** The NCRONTAB binding expression; the host resolves it from app settings. */
  schedule: string;
  handler(rt: Runtime, timer: Timer, context: InvocationContext): Promise<unknown>;
}

export interface QueueRegistration {
  name: string;
  trigger: 'storageQueue';
  /** Which of the storage layer's queues the trigger reads. */
  queue: 'reconcile' | 'probe';
  /** The queue name binding expression; the host resolves it from app settings. */
  queueName: string;
  handler(rt: Runtime, message: unknown, context: InvocationContext): Promise<unknown>;
  /** The object a message names, for the local host's fair order (src/host/lanes.ts); undefined when it names none. */
  lane(message: unknown): string | undefined;
}

export interface HttpRegistration {
  name: string;
  trigger: 'http';
  route: string;
  methods: 'GET'[];
  authLevel: 'function';
  handler(rt: Runtime, request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit>;
}

export type Registration = TimerRegistration | QueueRegistration | HttpRegistration;

export const reconcileTimer: TimerRegistration = {
  name: 'reconcileTimer',
  trigger: 'timer',
  schedule: '%DROVER_SCHEDULE%',
  handler: onReconcileTimer,
};

export const reconcileQueue: QueueRegistration = {
  name: 'reconcileQueue',
  trigger: 'storageQueue',
  queue: 'reconcile',
  queueName: '%DROVER_RECONCILE_QUEUE%',
  handler: onReconcileMessage,
  lane: reconcileLane,
};

export const probeQueue: QueueRegistration = {
  name: 'probeQueue',
  trigger: 'storageQueue',
  queue: 'probe',
  queueName: '%DROVER_PROBE_QUEUE%',
  handler: onProbeMessage,
  lane: probeLane,
};

export const status: HttpRegistration = {
  name: 'status',
  trigger: 'http',
  route: 'status',
  methods: ['GET'],
  authLevel: 'function',
  handler: onStatusRequest,
};

export const registrations: readonly Registration[] = [reconcileTimer, reconcileQueue, probeQueue, status];
