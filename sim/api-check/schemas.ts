/**
 * Schema checks with ajv (JSON Schema draft-07, which Swagger 2.0's schema objects are a subset
 * of once specs.ts has prepared them): every loaded document registered under its file URL, so
 * that absolute `$ref`s resolve. Unknown request fields are found by walking the schema
 * (`properties` through `allOf` and `$ref`), as Swagger schemas rarely close their objects.
 */
import Ajv from 'ajv';
import type { SchemaCheck } from './check.js';
import { isObject, type JsonObject, type JsonValue, type SpecStore } from './specs.js';

/** Loads every document `roots` reference, however indirectly (examples excepted). */
export function loadTransitively(store: SpecStore, roots: readonly string[]): void {
  const pending = [...roots];
  const seen = new Set<string>();
  while (pending.length) {
    const url = pending.pop()!;
    if (seen.has(url)) continue;
    seen.add(url);
    const refs = new Set<string>();
    collectRefs(store.document(url), refs);
    for (const ref of refs) pending.push(ref.split('#')[0]!);
  }
}

function collectRefs(node: JsonValue, out: Set<string>): void {
  if (Array.isArray(node)) for (const n of node) collectRefs(n, out);
  else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') out.add(value);
      else if (key !== 'x-ms-examples') collectRefs(value, out);
    }
  }
}

export function schemaCheck(store: SpecStore): SchemaCheck {
  const ajv = new Ajv({ nullable: true, unknownFormats: 'ignore', schemaId: '$id', validateSchema: false, allErrors: true, format: 'fast', logger: false });
  for (const [url, doc] of store.documents()) ajv.addSchema(doc as object, url);
  const compiled = new Map<string, Ajv.ValidateFunction>();
  const validator = (schema: JsonValue) => {
    const key = JSON.stringify(schema);
    let fn = compiled.get(key);
    if (!fn) compiled.set(key, (fn = ajv.compile(schema as object)));
    return fn;
  };
  return {
    errors(schema, value) {
      const fn = validator(schema);
      if (fn(value)) return [];
      return (fn.errors ?? []).slice(0, 5).map((e) => `${e.dataPath || '(root)'} ${e.message ?? 'is invalid'}${e.params && 'additionalProperty' in e.params ? ` (${String((e.params as { additionalProperty: string }).additionalProperty)})` : ''}`);
    },
    unknownFields: (schema, value) => unknownFields(store, schema, value, '', 0),
  };
}

function resolved(store: SpecStore, schema: JsonValue | undefined): JsonObject {
  let node = schema;
  for (let hops = 0; isObject(node) && typeof node.$ref === 'string' && hops < 10; hops++) node = store.resolve(node.$ref);
  return isObject(node) ? node : {};
}

/** The properties a schema declares, its `allOf` parts' included; undefined when it leaves them open. */
function declared(store: SpecStore, schema: JsonObject, depth = 0): Map<string, JsonValue> | undefined {
  const out = new Map<string, JsonValue>();
  if (depth > 20 || schema.additionalProperties !== undefined && schema.additionalProperties !== false) return undefined;
  for (const [k, v] of Object.entries(isObject(schema.properties) ? schema.properties : {})) out.set(k, v);
  for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) {
    const more = declared(store, resolved(store, part), depth + 1);
    if (!more) return undefined;
    for (const [k, v] of more) out.set(k, v);
  }
  return out;
}

function unknownFields(store: SpecStore, schemaRef: JsonValue, value: unknown, at: string, depth: number): string[] {
  const schema = resolved(store, schemaRef);
  if (depth > 30) return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => unknownFields(store, schema.items ?? {}, v, `${at}/${i}`, depth + 1));
  if (!isObject(value)) return [];
  const properties = declared(store, schema);
  if (!properties || properties.size === 0) return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const property = properties.get(key);
    return property === undefined ? [`${at}/${key}`] : unknownFields(store, property, v, `${at}/${key}`, depth + 1);
  });
}
