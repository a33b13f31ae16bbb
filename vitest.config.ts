import { defineConfig } from 'vitest/config';

/**
 * The `unit` project: test files that do no I/O (no Azurite, no simulator, no socket, no child
 * process, no real-clock wait), listed by name. Every other test file is `integration`, which
 * starts Azurite once for the run: a new file lands there unless it is added to this list, so
 * a file that needs storage never runs without it. A listed file that opens a socket or starts
 * a process fails (test/support/no-io.ts).
 */
export const UNIT_FILES = [
  'test/status/measured-at.test.ts',
  'test/load/min-poll-interval.test.ts',
  'test/queue/push-protocol.property.test.ts',
  'test/azure/arm-pages.test.ts',
  'test/config/config-identity.test.ts',
  'test/scaler/adaptive-plan.test.ts',
  'test/status/policy-status.test.ts',
  'test/scaler/adaptive-table.test.ts',
  'test/azure/credential.test.ts',
  'test/azure/rate-limit-headers.test.ts',
  'test/azure/throttle.test.ts',
  'test/azure/vm-listing.test.ts',
  'test/cache/build-instances.test.ts',
  'test/cache/ids.test.ts',
  'test/cache/instance-status.test.ts',
  'test/cache/orchestration.test.ts',
  'test/cache/pack.test.ts',
  'test/cache/queries.test.ts',
  'test/cache/refresh-policy.test.ts',
  'test/cache/refresh-plan.test.ts',
  'test/cache/refresh-slowdown.test.ts',
  'test/cli/render.test.ts',
  'test/clock/clock.test.ts',
  'test/config/duration-rate.test.ts',
  'test/config/policy-schema.test.ts',
  'test/docs/readme-config.test.ts',
  'test/docs/scaling-kinds.test.ts',
  'test/infra/source-assignments.test.ts',
  'test/pool/machine-id.test.ts',
  'test/replay/time-axis.test.ts',
  'test/bench/quality-tables.test.ts',
  'test/cli/messages.test.ts',
  'test/errors/transient.test.ts',
  'test/host/lanes.test.ts',
  'test/host/timer.test.ts',
  'test/load/collect.test.ts',
  'test/load/decider.test.ts',
  'test/load/load-number.test.ts',
  'test/load/azure-monitor-buckets.test.ts',
  'test/load/replica-calculator.test.ts',
  'test/load/resource-pods.test.ts',
  'test/load/service-bus-pure.test.ts',
  'test/text/cap.test.ts',
  'test/scaler/hostile-numbers.test.ts',
  'test/load/samples.test.ts',
  'test/metrics/export.test.ts',
  'test/pool/autoscale-hold-table.test.ts',
  'test/pool/backoff-fast-delete.test.ts',
  'test/pool/churn.test.ts',
  'test/pool/generation.test.ts',
  'test/pool/machines.test.ts',
  'test/pool/plan-table.test.ts',
  'test/pool/scale-in-table.test.ts',
  'test/pool/vm-names.test.ts',
  'test/pool/warm-buffer-table.test.ts',
  'test/pool/property.test.ts',
  'test/pool/smoke.test.ts',
  'test/pool/token-bucket.test.ts',
  'test/probe/async-probe.test.ts',
  'test/pool/provisioning.test.ts',
  'test/pool/machine.test.ts',
  'test/queue/messages.test.ts',
  'test/queue/pending-plan.test.ts',
  'test/replay/hand-trace.test.ts',
  'test/replay/scaler-paths.test.ts',
  'test/replay/schedule.test.ts',
  'test/replay/timeline.test.ts',
  'test/runtime/runtime.test.ts',
  'test/scaler/active-condition.test.ts',
  'test/scaler/bounds.test.ts',
  'test/scaler/conditions.test.ts',
  'test/scaler/poll-interval.test.ts',
  'test/scaler/scale-plan.test.ts',
  'test/scaler/decide-target.test.ts',
  'test/scaler/kpa-tables.test.ts',
  'test/scaler/metric-type.test.ts',
  'test/replay/source-columns.test.ts',
  'test/docs/scaling-examples.test.ts',
  'test/scaler/no-evidence.property.test.ts',
  'test/scaler/policy-cases-hpa.test.ts',
  'test/scaler/policy-cases-keda-knative.test.ts',
  'test/scaler/policy-modules.test.ts',
  'test/scaler/policy-through-plan.test.ts',
  'test/scaler/sleep-plan.test.ts',
  'test/scaler/scale-step-loop.test.ts',
  'test/scaler/target-bookkeeping.test.ts',
  'test/scaler/target-decision.test.ts',
  'test/state/keys.test.ts',
  'test/state/skew-watch.test.ts',
  'test/state/stall-watch.test.ts',
  'test/scaler/future-times.test.ts',
  'test/state/row-conversion.test.ts',
  'test/status/page.test.ts',
  'test/status/selection.test.ts',
  'test/state/history-writes.test.ts',
  'test/support/guards.test.ts',
  'test/support/memory-table.test.ts',
  'test/infra/bench-doc.test.ts',
  // i21d: the replay of a Pool target (no I/O).
  'test/replay/pool-target.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two workers on two cores (the default leaves one core to the main process): most
    // integration files wait on Azurite, the simulators or real time, so two overlap well.
    maxWorkers: 2,
    // Every test fails if it writes to the console: logs go through the injected logger.
    setupFiles: ['test/support/quiet.ts', 'test/support/clean-temp-dirs.ts'],
    // The run's own temporary folder, checked empty at the end (test/support/temp-guard.ts).
    globalSetup: ['test/support/temp-guard.ts'],
    projects: [
      {
        extends: true,
        // No I/O and no module state worth a fresh process: the files share their workers,
        // which takes the project from seconds of process start-up per file to seconds in all.
        test: { name: 'unit', include: UNIT_FILES, setupFiles: ['test/support/no-io.ts'], isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...UNIT_FILES],
          globalSetup: ['test/support/global-setup.ts'],
          // Each exchange the simulators record names its test file (sim/api-check/deliberate.ts).
          setupFiles: ['test/support/record-source.ts'],
          // The files share worker processes too: loading the SDKs once per worker instead of
          // once per file is most of the difference between minutes and one. A file that
          // changes process-wide state (process.env, a global provider) puts it back after.
          isolate: false,
        },
      },
    ],
  },
});
