import { app, type InvocationContext, type Timer } from '@azure/functions';
import { onReconcileTimer } from '../src/handlers/reconcile-timer.js';

export async function reconcileTimer(timer: Timer, context: InvocationContext): Promise<void> {
  await onReconcileTimer(timer, context);
}

app.timer('reconcileTimer', { schedule: '%DROVER_SCHEDULE%', handler: reconcileTimer });
