/**
 * The two patch formats the simulator accepts on /scale, applied to the Scale document as the
 * API server applies them to the serialized object: JSON Patch (RFC 6902: add, replace, remove,
 * test on object members) and JSON Merge Patch (RFC 7386; strategic merge behaves the same on a
 * Scale). A `replace` of a member the document omits fails, which is why a Scale at 0 replicas
 * must be patched with `add`.
 */
import type { Json, JsonObject } from './documents.js';

export class InvalidPatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidPatchError';
  }
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pointer(path: unknown): string[] {
  if (typeof path !== 'string' || !path.startsWith('/')) throw new InvalidPatchError(`invalid path ${JSON.stringify(path)}`);
  return path.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The object holding the member a pointer names, and the member's name. */
function locate(doc: JsonObject, path: string[], op: string): [JsonObject, string] {
  let parent: Json | undefined = doc;
  for (const token of path.slice(0, -1)) {
    parent = isObject(parent) ? parent[token] : undefined;
  }
  const member = path[path.length - 1];
  if (!isObject(parent) || member === undefined) {
    throw new InvalidPatchError(`${op}: no object at /${path.slice(0, -1).join('/')}`);
  }
  return [parent, member];
}

export function applyJsonPatch(doc: JsonObject, operations: unknown): JsonObject {
  if (!Array.isArray(operations)) throw new InvalidPatchError('a JSON patch must be an array of operations');
  const out = structuredClone(doc);
  for (const operation of operations as unknown[]) {
    if (!isObject(operation as Json)) throw new InvalidPatchError('a JSON patch operation must be an object');
    const { op, path, value } = operation as { op?: unknown; path?: unknown; value?: Json };
    const [parent, member] = locate(out, pointer(path), String(op));
    const present = Object.hasOwn(parent, member);
    switch (op) {
      case 'add':
        parent[member] = value ?? null;
        break;
      case 'replace':
      case 'remove':
        if (!present) throw new InvalidPatchError(`${op}: ${String(path)} does not exist`);
        if (op === 'replace') parent[member] = value ?? null;
        else delete parent[member];
        break;
      case 'test':
        if (!present || JSON.stringify(parent[member]) !== JSON.stringify(value)) {
          throw new InvalidPatchError(`test: ${String(path)} is not ${JSON.stringify(value)}`);
        }
        break;
      default:
        throw new InvalidPatchError(`unsupported JSON patch op ${JSON.stringify(op)}`);
    }
  }
  return out;
}

export function applyMergePatch(doc: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: JsonObject = isObject(doc) ? { ...doc } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
}

/** spec.replicas of a patched Scale; absent reads as 0, as the API server's omitempty field. */
export function replicasOf(scale: Json): number {
  const spec = isObject(scale) ? scale.spec : undefined;
  const replicas = isObject(spec) ? (spec.replicas ?? 0) : 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw new InvalidPatchError(`spec.replicas: expected an integer ≥ 0, got ${JSON.stringify(replicas)}`);
  }
  return replicas;
}
