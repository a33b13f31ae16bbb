/**
 * The specification files, read from where they lie (never copied): each JSON file loaded once,
 * every `$ref` made absolute (`file:///…/x.json#/definitions/Y`) so that a schema taken out of
 * its file still resolves, and the Swagger 2.0 dialect brought to the JSON Schema ajv checks:
 * `x-nullable` allows null, an `x-ms-enum` with `modelAsString` is an open set (Azure's
 * extensible enums: a value outside the list is valid).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface SpecStore {
  /** The document at `url` (a file URL, without fragment), loaded and prepared. */
  document(url: string): JsonObject;
  /** What an absolute `$ref` points at. */
  resolve(ref: string): JsonValue | undefined;
  /** Every document loaded so far, by URL. */
  documents(): ReadonlyMap<string, JsonObject>;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function createSpecStore(): SpecStore {
  const loaded = new Map<string, JsonObject>();
  const document = (url: string): JsonObject => {
    const known = loaded.get(url);
    if (known) return known;
    if (!url.startsWith('file:')) throw new Error(`not a specification file: ${JSON.stringify(url)}`);
    const file = new URL(url);
    const raw = JSON.parse(readFileSync(file, 'utf8')) as JsonValue;
    if (!isObject(raw)) throw new Error(`${file.pathname}: not a JSON object`);
    const prepared = prepare(raw, url) as JsonObject;
    loaded.set(url, prepared);
    return prepared;
  };
  const resolve = (ref: string): JsonValue | undefined => {
    const [url = '', pointer = ''] = ref.split('#');
    let node: JsonValue | undefined = document(url);
    for (const part of pointer.split('/').filter(Boolean)) {
      const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
      node = isObject(node) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined;
    }
    return node;
  };
  return { document, resolve, documents: () => loaded };
}

export function fileUrl(file: string): string {
  return pathToFileURL(path.resolve(file)).href;
}

/** The folder, or an error saying what is missing and how to name another. */
export function requireFolder(dir: string, what: string): string {
  if (!existsSync(dir)) throw new Error(`${what}: no folder ${dir} (give another with --specs DIR)`);
  return dir;
}

function prepare(node: JsonValue, base: string): JsonValue {
  if (Array.isArray(node)) return node.map((n) => prepare(n, base));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') out[key] = new URL(value, base).href;
    // Examples are payloads, not schemas: left as they are.
    else if (key === 'x-ms-examples') out[key] = value;
    else out[key] = prepare(value, base);
  }
  if (out['x-nullable'] === true) out.nullable = true;
  const msEnum = out['x-ms-enum'];
  if (isObject(msEnum) && msEnum.modelAsString === true) delete out.enum;
  return out;
}
