/** A push as `drover enqueue --load` makes it (the value written where the reconcile reads it), then a reconcile of the target. */
import { reconcileObject } from '../../src/reconcile/object.js';
import type { ObjectOutcome, ObjectRef, ReconcileRequest } from '../../src/job/context.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { Log } from '../../src/log.js';

export async function pushThenReconcile(rt: Runtime, ref: ObjectRef, load: number, request: ReconcileRequest, options: { log: Log; signal?: AbortSignal }): Promise<ObjectOutcome> {
  await rt.stores.pushes.record(ref.name, load);
  return reconcileObject(rt, ref, request, options);
}
