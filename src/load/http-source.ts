/**
 * The `http` load source: a GET of the configured URL answering a number, or JSON with the
 * number at `jsonPath`. Anything else — no answer within the timeout, a status outside 2xx, a
 * body that is not a finite number ≥ 0, a body over 64 KiB — is no sample, reported with its reason.
 */
import { z } from 'zod';
import { duration, nonEmpty } from '../config/fields.js';
import { isBodyTooLarge, readCappedText } from '../http/capped-body.js';
import { isJsonPathError, valueAtPath } from './json-path.js';
import { parseDecimalLoad } from './load-number.js';
import { defineKind, type SourceReading } from './source-kind.js';

export type LoadReading = SourceReading;

export interface HttpSourceConfig {
  url: string;
  jsonPath?: string;
  /** ms. */
  timeout: number;
}

export const httpKind = defineKind({
  name: 'http',
  keys: {
    url: z.url({ error: 'expected a URL' }),
    /** Dotted path into a JSON answer (`metrics.inflight`, `queues[0].depth`); none: the body is a number. */
    jsonPath: nonEmpty.optional(),
    timeout: duration('2s', { positive: true }),
  },
  traits: { delivery: 'polled', holdsWork: false, sampling: 'total', metricType: { default: 'total', fixed: false } },
  open: (config) => ({ read: (signal) => readHttpLoad(config, signal) }),
  describe: (config) => `http ${config.url}${config.jsonPath ? ` at ${config.jsonPath}` : ''}`,
});

export async function readHttpLoad(source: HttpSourceConfig, signal?: AbortSignal): Promise<LoadReading> {
  const timeout = AbortSignal.timeout(source.timeout);
  try {
    const res = await fetch(source.url, {
      headers: { accept: 'application/json, text/plain' },
      redirect: 'manual',
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    if (res.status < 200 || res.status > 299) {
      await res.body?.cancel().catch(() => undefined);
      return { ok: false, error: `${source.url} answered ${res.status}` };
    }
    const body = await readCappedText(res);
    return parseLoad(body, source.jsonPath, source.url);
  } catch (error) {
    if (isBodyTooLarge(error)) return { ok: false, error: `${source.url}: ${error.message}` };
    if (timeout.aborted) return { ok: false, error: `${source.url}: no answer within ${source.timeout} ms` };
    return { ok: false, error: `${source.url}: ${describe(error)}` };
  }
}

/**
 * The load in an answer's body: a bare decimal number, or the number at `jsonPath` in JSON (a
 * JSON number, or a string holding a decimal one). A value too large for a double (`1e400`)
 * reads as Infinity here and is lowered to MAX_LOAD with every other oversized sample.
 */
export function parseLoad(body: string, jsonPath: string | undefined, from: string): LoadReading {
  let value: unknown;
  if (jsonPath === undefined) {
    value = parseDecimalLoad(body);
  } else {
    try {
      value = valueAtPath(JSON.parse(body) as unknown, jsonPath);
    } catch (error) {
      return { ok: false, error: `${from}: ${isJsonPathError(error) ? error.message : 'the answer is not JSON'}` };
    }
    if (typeof value === 'string') value = parseDecimalLoad(value) ?? value;
  }
  if (typeof value !== 'number' || !(value >= 0)) {
    return { ok: false, error: `${from}: ${JSON.stringify(clip(jsonPath === undefined ? body : value))} is not a load (a decimal number ≥ 0)` };
  }
  return { ok: true, value };
}

function clip(value: unknown): unknown {
  return typeof value === 'string' && value.length > 60 ? `${value.slice(0, 60)}…` : value;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
