/**
 * The configuration sequence: one number per deployment that says which configuration is newer,
 * so that during a rolling deploy (old and new instances on one storage account) the newer one
 * wins every object and the two do not take turns (docs/architecture.md, "One configuration at
 * a time").
 *
 * `scripts/build.mjs` writes it next to the deployed configuration, in `drover.sequence.json`:
 * the build's time in epoch milliseconds. A rollback is a newer build of older code, so it is
 * newer too. Where no build stamped one (`drover run`, the demo, a checkout), the configuration
 * file's modification time in milliseconds stands in: of two local hosts, the one whose file was
 * written last wins. An inline configuration (tests) has sequence 0 unless it is given one.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const SEQUENCE_FILE = 'drover.sequence.json';

/** The largest sequence accepted from the file (a time in ms well past year 9999 is refused). */
const MAX_SEQUENCE = 253_402_300_800_000;

export type SequenceSource = 'build' | 'file time' | 'none';

export interface ConfigSequence {
  seq: number;
  source: SequenceSource;
}

/** Reads the sequence of the configuration in `configFile`: the build's stamp beside it, else the file's time. */
export function readConfigSequence(configFile: string): ConfigSequence {
  const stamped = readStamp(path.join(path.dirname(configFile), SEQUENCE_FILE));
  if (stamped !== undefined) return { seq: stamped, source: 'build' };
  try {
    return { seq: Math.floor(statSync(configFile).mtimeMs), source: 'file time' };
  } catch {
    return { seq: 0, source: 'none' };
  }
}

function readStamp(file: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  // A stamp that is there but unreadable is a broken package: refuse it rather than guess.
  const seq: unknown = (JSON.parse(text.slice(0, 4096)) as { sequence?: unknown }).sequence;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0 || seq > MAX_SEQUENCE) {
    throw new Error(`${file}: "sequence" must be a whole number of milliseconds (as scripts/build.mjs writes it)`);
  }
  return seq;
}

/**
 * Which configuration a host runs: its sequence, and the SHA-256 (hex) of the validated
 * configuration in canonical JSON. Two different configurations can have the same sequence (two
 * local hosts whose files were written in the same millisecond): the hash breaks the tie the same
 * way on every host, and two files that say the same thing in different words hash alike.
 */
export interface ConfigId {
  seq: number;
  hash: string;
}

/** The SHA-256 of `config` in canonical JSON (object keys sorted at every depth). */
export function configHash(config: unknown): string {
  return createHash('sha256').update(canonicalJson(config)).digest('hex');
}

/** JSON with every object's keys in sorted order, so equal data gives equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}

/** Whether configuration `a` wins over `b`: a higher sequence, or the same one and a higher hash. */
export function outranks(a: ConfigId, b: ConfigId): boolean {
  return a.seq > b.seq || (a.seq === b.seq && a.hash > b.hash);
}

/** The first 8 hex digits of a configuration's hash, as status and the log name it. */
export const shortHash = (hash: string) => hash.slice(0, 8) || '(none)';
