/**
 * Go-style durations ("90s", "5m", "1h30m", "300ms", "1.5h"), parsed the way Go's
 * time.ParseDuration does, so values from the seeds' flags mean the same thing here.
 * Results are milliseconds (fractions of a millisecond are kept).
 */
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  'μs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** How every message about a bad duration says what one looks like. */
export const DURATION_FORM = 'a duration such as "90s", "5m" or "1h30m"';

export class DurationSyntaxError extends Error {
  override name = 'DurationSyntaxError';
  constructor(readonly input: string, detail: string) {
    super(`invalid duration ${JSON.stringify(input)}: ${detail}; expected ${DURATION_FORM}`);
  }
}

export function parseDuration(input: string): number {
  let s = input;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    sign = s[0] === '-' ? -1 : 1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw new DurationSyntaxError(input, 'empty');
  let total = 0;
  const part = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;
  while (s.length > 0) {
    const m = part.exec(s);
    if (!m) {
      const unitless = /^(\d+(?:\.\d*)?|\.\d+)$/.test(s) || /^(\d+(?:\.\d*)?|\.\d+)[^a-zµμ]/.test(s);
      throw new DurationSyntaxError(input, unitless ? 'missing unit (use ns, us, ms, s, m or h)' : 'not a number followed by a unit');
    }
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    s = s.slice(m[0].length);
  }
  if (!Number.isFinite(total) || total > Number.MAX_SAFE_INTEGER) throw new DurationSyntaxError(input, 'out of range');
  return sign * total;
}

/** Formats milliseconds back to a compact Go-style string ("1h30m", "45s", "250ms"). */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 0) return `-${formatDuration(-ms)}`;
  if (ms < 1000) return `${Math.round(ms * 1000) / 1000}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${Math.round(s * 1000) / 1000}s` : ''}`;
}
