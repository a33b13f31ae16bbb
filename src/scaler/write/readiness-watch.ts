/**
 * How long the reconcile that wakes a target watches for its first ready replica, and how often
 * it looks: a Kubernetes read is cheap, a scale set's means listing its VMs, so a scale set is
 * not watched unless `activationWatch` asks for it. The reconcile caps the watch by its lease;
 * replay uses the same figures.
 */
export function readinessWatch(kind: 'kubernetes' | 'pool', activationWatchMs: number | undefined): { watchMs: number; pollMs: number } {
  return kind === 'kubernetes' ? { watchMs: activationWatchMs ?? 5_000, pollMs: 100 } : { watchMs: activationWatchMs ?? 0, pollMs: 5_000 };
}
