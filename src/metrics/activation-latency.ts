/**
 * The activation latency metric: one histogram sample per wake from zero, in milliseconds,
 * with the target's name and kind. Recorded through the OpenTelemetry API, so it goes wherever
 * the process's meter provider sends it (Azure Monitor when configured, see `export.ts`;
 * nowhere otherwise); tests hand in a provider of their own.
 */
import { metrics, type MeterProvider } from '@opentelemetry/api';

export const ACTIVATION_LATENCY_METRIC = 'drover.target.activation_latency';

export interface ActivationLatency {
  target: string;
  kind: 'kubernetes' | 'pool';
  latencyMs: number;
}

export function recordActivationLatency(sample: ActivationLatency, provider: MeterProvider = metrics.getMeterProvider()): void {
  // The SDK hands back the same instrument for the same name, so asking each time is cheap
  // and picks up a provider registered after this module was loaded.
  const histogram = provider.getMeter('drover').createHistogram(ACTIVATION_LATENCY_METRIC, {
    description: 'Time from the first load sample (or forced reconcile) of a wake from zero to the first ready replica',
    unit: 'ms',
  });
  histogram.record(sample.latencyMs, { 'drover.target': sample.target, 'drover.target.kind': sample.kind });
}
