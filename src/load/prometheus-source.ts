/**
 * The `prometheus` load source (KEDA's prometheus scaler): an instant query, whose answer must be
 * one series or a scalar. No series, NaN or ±Inf is no reading — the source fails, which holds
 * scale-down — unless `ignoreNullValues` reads it as 0; more than one series is a failure naming
 * the query and the count (a query meant to give one number that gives several is a mistake to
 * show, not to guess through).
 *
 * The query goes as `GET /api/v1/query?query=…`, or as a form-encoded POST when that URL would
 * pass 2 KiB (Prometheus and Azure Monitor's managed Prometheus accept both). Each read has the
 * source's `timeout` and a 64 KiB answer. Auth: none; `azure` — a token of Drover's identity for
 * Azure Monitor managed Prometheus (role Monitoring Data Reader on the workspace); or
 * `{ bearerTokenSetting: NAME }` — a bearer token read from that app setting, never from the file.
 */
import { z } from 'zod';
import { duration, nonEmpty } from '../config/fields.js';
import { isLoopbackHost } from '../config/loopback.js';
import { isBodyTooLarge, readCappedText } from '../http/capped-body.js';
import { errorMessage } from '../log.js';
import { defineKind, type SourcePorts, type SourceReading } from './source-kind.js';

/** Azure Monitor managed Prometheus's token audience. */
export const AZURE_PROMETHEUS_SCOPE = 'https://prometheus.monitor.azure.com/.default';
/** Monitoring Data Reader: reads an Azure Monitor workspace's data, and nothing else. */
export const MONITORING_DATA_READER = 'b0d8363b-8ddd-447d-831f-62ca05bff136';
/** Past this a GET's URL may be cut by proxies; the query goes as a form POST instead. */
export const MAX_GET_URL = 2_048;
const MAX_QUERY_CHARS = 16_384;

const auth = z
  .union([z.enum(['none', 'azure']), z.object({ bearerTokenSetting: nonEmpty }).strict()], { error: 'expected "none", "azure" or { bearerTokenSetting: NAME }' })
  .default('none');

const keys = {
  serverAddress: z.url({ error: 'expected a URL' }),
  query: nonEmpty.max(MAX_QUERY_CHARS, { error: `expected at most ${MAX_QUERY_CHARS} characters` }),
  timeout: duration('2s', { positive: true }),
  ignoreNullValues: z.boolean({ error: 'expected true or false' }).default(false),
  auth,
};

export type PrometheusConfig = z.output<z.ZodObject<typeof keys>>;

export const prometheusKind = defineKind({
  name: 'prometheus',
  keys,
  check: (config) =>
    config.auth !== 'none' && new URL(config.serverAddress).protocol === 'http:' && !isLoopbackHost(new URL(config.serverAddress).hostname)
      ? [{ path: ['serverAddress'], message: 'expected https: a token is sent to it (plain http only on loopback)' }]
      : [],
  traits: { delivery: 'polled', holdsWork: false, sampling: 'total', metricType: { default: 'total', fixed: false } },
  open: (config, ports) => ({ read: (signal) => readPrometheus(config, ports, signal) }),
  describe: (config) => `prometheus ${config.serverAddress} ${config.query}`,
  grants: (config) =>
    config.auth === 'azure'
      ? [
          {
            kind: 'azureRole',
            roleId: MONITORING_DATA_READER,
            roleName: 'Monitoring Data Reader',
            scope: { lookup: { resourceType: 'Microsoft.Monitor/accounts', property: 'properties.metrics.prometheusQueryEndpoint', equals: new URL(config.serverAddress).origin } },
            why: `the prometheus source's queries, on the Azure Monitor workspace answering at ${new URL(config.serverAddress).origin}`,
          },
        ]
      : [],
});

export async function readPrometheus(config: PrometheusConfig, ports: Pick<SourcePorts, 'credential' | 'setting'>, signal: AbortSignal): Promise<SourceReading> {
  const timeout = AbortSignal.timeout(config.timeout);
  const both = AbortSignal.any([signal, timeout]);
  const where = `prometheus ${config.serverAddress}`;
  try {
    const token = await tokenFor(config.auth, ports, both);
    if (!token.ok) return { ok: false, error: `${where}: ${token.error}` };
    const res = await fetch(...queryRequest(config.serverAddress, config.query, token.value, both));
    const body = await readCappedText(res);
    return parseQueryAnswer(res.status, body, config);
  } catch (error) {
    if (isBodyTooLarge(error)) return { ok: false, error: `${where}: ${error.message}` };
    if (timeout.aborted) return { ok: false, error: `${where}: no answer within ${config.timeout} ms` };
    return { ok: false, error: `${where}: ${describe(error)}` };
  }
}

type Token = { ok: true; value: string | undefined } | { ok: false; error: string };

async function tokenFor(auth: PrometheusConfig['auth'], ports: Pick<SourcePorts, 'credential' | 'setting'>, signal: AbortSignal): Promise<Token> {
  if (auth === 'none') return { ok: true, value: undefined };
  if (auth === 'azure') {
    const got = await ports.credential().getToken(AZURE_PROMETHEUS_SCOPE, { abortSignal: signal });
    return got ? { ok: true, value: got.token } : { ok: false, error: 'no token for Azure Monitor managed Prometheus' };
  }
  const value = ports.setting(auth.bearerTokenSetting);
  return value ? { ok: true, value } : { ok: false, error: `app setting ${auth.bearerTokenSetting} (bearerTokenSetting) is not set` };
}

/** The instant query as a GET, or as a form POST when the GET's URL would pass MAX_GET_URL. */
export function queryRequest(serverAddress: string, query: string, token: string | undefined, signal: AbortSignal): [URL, RequestInit] {
  const base = serverAddress.endsWith('/') ? serverAddress : `${serverAddress}/`;
  const url = new URL('api/v1/query', base);
  const form = new URLSearchParams({ query });
  const headers: Record<string, string> = { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const get = new URL(`${url.href}?${form.toString()}`);
  if (get.href.length <= MAX_GET_URL) return [get, { headers, redirect: 'manual', signal }];
  return [url, { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString(), redirect: 'manual', signal }];
}

type Answer = { status?: string; error?: string; data?: { resultType?: string; result?: unknown } };

/** The reading an instant query's answer gives (pure: status and body in). */
export function parseQueryAnswer(status: number, body: string, config: Pick<PrometheusConfig, 'serverAddress' | 'query' | 'ignoreNullValues'>): SourceReading {
  const where = `prometheus ${config.serverAddress} query ${JSON.stringify(config.query)}`;
  let answer: Answer;
  try {
    answer = JSON.parse(body) as Answer;
  } catch {
    return { ok: false, error: `${where}: answered ${status} with no JSON` };
  }
  if (status < 200 || status > 299 || answer.status !== 'success') {
    return { ok: false, error: `${where}: answered ${status}${typeof answer.error === 'string' ? `: ${answer.error.slice(0, 200)}` : ''}` };
  }
  const sample = sampleOf(answer.data);
  if (!sample.ok) return { ok: false, error: `${where}: ${sample.error}` };
  const value = sample.value === undefined ? Number.NaN : Number(sample.value);
  if (Number.isFinite(value)) return { ok: true, value };
  if (config.ignoreNullValues) return { ok: true, value: 0 };
  const what = sample.value === undefined ? 'gave no series' : `gave ${sample.value}`;
  return { ok: false, error: `${where} ${what}: no reading, so no scale-down (ignoreNullValues: true reads it as 0)` };
}

/** The one value of a vector or scalar answer: its text, or undefined for an empty vector. */
function sampleOf(data: Answer['data']): { ok: true; value: string | undefined } | { ok: false; error: string } {
  const result = data?.result;
  if (data?.resultType === 'scalar') return Array.isArray(result) ? { ok: true, value: String(result[1]) } : { ok: false, error: 'a scalar answer without a value' };
  if (data?.resultType !== 'vector' || !Array.isArray(result)) return { ok: false, error: `expected a vector or a scalar, got ${JSON.stringify(data?.resultType ?? null)}` };
  if (result.length > 1) return { ok: false, error: `gave ${result.length} series, expected one (aggregate it, e.g. sum(…))` };
  const only = result[0] as { value?: unknown } | undefined;
  if (only === undefined) return { ok: true, value: undefined };
  return Array.isArray(only.value) ? { ok: true, value: String(only.value[1]) } : { ok: false, error: 'a series without a value' };
}

function describe(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${errorMessage(error)}${cause}`;
}
