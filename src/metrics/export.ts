/**
 * Sends Drover's metrics to Azure Monitor (Application Insights) when the app setting
 * APPLICATIONINSIGHTS_CONNECTION_STRING is there, and nowhere otherwise. Application Insights
 * runs with local authentication disabled, so the exporter authenticates with the managed
 * identity: the user-assigned one named in APPLICATIONINSIGHTS_AUTHENTICATION_STRING
 * (`Authorization=AAD;ClientId=…`) or AZURE_CLIENT_ID, else the system-assigned one.
 *
 * The exporter is imported only when needed, so runs without Application Insights never load it.
 */
import { metrics, type MeterProvider } from '@opentelemetry/api';
import { errorMessage, type Log } from '../log.js';

export interface MetricsExportSettings {
  connectionString: string;
  /** Client id of a user-assigned managed identity; undefined for the system-assigned one. */
  clientId: string | undefined;
}

/** What the environment asks for; undefined when metrics are not exported. */
export function metricsExportSettings(env: NodeJS.ProcessEnv): MetricsExportSettings | undefined {
  const connectionString = env.APPLICATIONINSIGHTS_CONNECTION_STRING?.trim();
  if (!connectionString) return undefined;
  const fromAuth = /(?:^|;)\s*ClientId=([^;]+)/i.exec(env.APPLICATIONINSIGHTS_AUTHENTICATION_STRING ?? '')?.[1]?.trim();
  return { connectionString, clientId: fromAuth || env.AZURE_CLIENT_ID || undefined };
}

/** How often the periodic reader sends what was recorded. */
export const EXPORT_INTERVAL_MS = 60_000;

let started: Promise<MeterProvider | undefined> | undefined;

/**
 * Registers the Azure Monitor meter provider once per process (the provider is process-wide by
 * nature: OpenTelemetry's global). Safe to call on every record; resolves to undefined when
 * the environment asks for no export or the setup failed (logged, retried on the next call).
 */
export function ensureMetricsExport(env: NodeJS.ProcessEnv, log: Log): Promise<MeterProvider | undefined> {
  const settings = metricsExportSettings(env);
  if (!settings) return Promise.resolve(undefined);
  started ??= startExport(settings).catch((error: unknown) => {
    log.warn(`metrics: could not start the Azure Monitor exporter: ${errorMessage(error)}`);
    started = undefined;
    return undefined;
  });
  return started;
}

async function startExport(settings: MetricsExportSettings): Promise<MeterProvider> {
  const [{ AzureMonitorMetricExporter }, { MeterProvider: SdkMeterProvider, PeriodicExportingMetricReader }, { ManagedIdentityCredential }] =
    await Promise.all([import('@azure/monitor-opentelemetry-exporter'), import('@opentelemetry/sdk-metrics'), import('@azure/identity')]);
  const credential = settings.clientId ? new ManagedIdentityCredential({ clientId: settings.clientId }) : new ManagedIdentityCredential();
  const exporter = new AzureMonitorMetricExporter({ connectionString: settings.connectionString, credential });
  const provider = new SdkMeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: EXPORT_INTERVAL_MS })] });
  metrics.setGlobalMeterProvider(provider);
  return provider;
}

/**
 * Records through `record` and, when exporting, flushes at once: a wake is rare and the
 * Functions host may recycle the instance before the next periodic export.
 */
export async function recordAndFlush(env: NodeJS.ProcessEnv, log: Log, record: (provider?: MeterProvider) => void): Promise<void> {
  const provider = await ensureMetricsExport(env, log);
  record(provider);
  const flushable = provider as (MeterProvider & { forceFlush?: () => Promise<void> }) | undefined;
  const flush = flushable?.forceFlush?.();
  if (!flush) return;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      log.warn(`metrics: export still running after ${FLUSH_BOUND_MS} ms; the periodic export will retry`);
      resolve();
    }, FLUSH_BOUND_MS);
  });
  await Promise.race([flush.catch((error: unknown) => log.warn(`metrics: export failed: ${errorMessage(error)}`)), bound]);
  clearTimeout(timer);
}

/** A reconcile waits this long at most for the export of its sample. */
const FLUSH_BOUND_MS = 5_000;
