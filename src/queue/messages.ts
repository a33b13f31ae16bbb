/**
 * The two queue message shapes. They name what to act on and nothing an attacker could aim
 * with: no URL, endpoint or credential ever rides in a message (those come only from the
 * config file), and unknown fields are refused rather than ignored.
 */
import { z } from 'zod';
import { PRINTABLE } from '../redact.js';

const name = z.string({ error: 'expected a string' }).min(1, { error: 'must not be empty' }).max(63, { error: 'too long (max 63)' });

export const reconcileMessageSchema = z
  .object({
    kind: z.enum(['target', 'pool'], { error: 'expected "target" or "pool"' }),
    name,
    // Echoed into decisions and log lines: printable characters only, so that it cannot forge a line.
    reason: z
      .string({ error: 'expected a string' })
      .max(200, { error: 'too long (max 200)' })
      .regex(PRINTABLE, { error: 'control characters are not allowed' })
      .default('forced'),
    load: z.number({ error: 'expected a number' }).finite().min(0, { error: 'expected a number ≥ 0' }).optional(),
    /** When the sender wanted this reconcile to happen (epoch ms); lets repeats be recognised. */
    dueAt: z.number({ error: 'expected epoch milliseconds' }).int().nonnegative().optional(),
  })
  .strict();

export const probeMessageSchema = z
  .object({
    target: name,
    attempt: z.number({ error: 'expected a number' }).int({ error: 'expected a whole number' }).min(0, { error: 'expected a number ≥ 0' }),
    /** Epoch milliseconds after which the probe gives up. */
    deadline: z.number({ error: 'expected epoch milliseconds' }).int().nonnegative(),
  })
  .strict();

export type ReconcileMessage = z.output<typeof reconcileMessageSchema>;
export type ProbeMessage = z.output<typeof probeMessageSchema>;

export type Decoded<T> = { ok: true; message: T } | { ok: false; reason: string };

/**
 * Accepts what a queue trigger hands over: an object (the host parsed the JSON), a JSON
 * string, or base64 of a JSON string (what the local host reads off the queue).
 */
export function decodeMessage<T>(schema: z.ZodType<T>, raw: unknown): Decoded<T> {
  let value = raw;
  if (Buffer.isBuffer(value)) value = value.toString('utf8');
  if (typeof value === 'string') {
    const parsed = parseJsonOrBase64Json(value);
    if (!parsed.ok) return parsed;
    value = parsed.message;
  }
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, message: result.data };
  const problems = result.error.issues.map((i) => {
    const where = i.path.length ? i.path.join('.') : 'message';
    const what = i.code === 'unrecognized_keys' ? `unknown field(s) ${i.keys.map((k) => `"${k}"`).join(', ')}` : i.message;
    return `${where}: ${what}`;
  });
  return { ok: false, reason: problems.join('; ') };
}

function parseJsonOrBase64Json(text: string): Decoded<unknown> {
  const attempt = (s: string) => {
    try {
      return { ok: true as const, message: JSON.parse(s) as unknown };
    } catch {
      return undefined;
    }
  };
  const direct = attempt(text);
  if (direct) return direct;
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(text.trim())) {
    const decoded = attempt(Buffer.from(text.trim(), 'base64').toString('utf8'));
    if (decoded) return decoded;
  }
  return { ok: false, reason: `not JSON (nor base64 of JSON): ${JSON.stringify(text.slice(0, 80))}` };
}

/** Queue bodies are base64 of UTF-8 JSON, which is what the Functions queue trigger expects by default. */
export function encodeMessage(message: object): string {
  return Buffer.from(JSON.stringify(message), 'utf8').toString('base64');
}
