/**
 * The operations of a Swagger 2.0 document: method, path template, parameters (path-level and
 * operation-level, `$ref`s followed), declared responses and the media types it consumes, and a
 * matcher from a recorded request to its operation. Literal path segments match exactly (a
 * strict proxy compares them as written); a parameter with `x-ms-skip-url-encoding` (Azure
 * Monitor's `resourceUri`) may span several segments.
 */
import { isObject, type JsonObject, type JsonValue, type SpecStore } from './specs.js';

export interface SpecParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'body' | 'formData';
  required: boolean;
  schema?: JsonValue;
  /** A parameter other than the body: its own type and enum, checked as a value. */
  simple?: JsonObject;
}

export interface SpecOperation {
  operationId: string;
  method: string;
  template: string;
  /** The spec file's `info.version` (ARM) or the Kubernetes release. */
  version: string;
  document: string;
  parameters: SpecParameter[];
  responses: Record<string, JsonObject>;
  consumes: string[];
  matcher: RegExp;
  /** `x-ms-pageable` with a next link: its later pages carry the service's `$skiptoken`. */
  pageable: boolean;
  /** Literal segments, for preferring the most specific of two matching templates. */
  literals: number;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];

export function operationsOf(store: SpecStore, documentUrl: string): SpecOperation[] {
  const doc = store.document(documentUrl);
  const version = isObject(doc.info) && typeof doc.info.version === 'string' ? doc.info.version : 'unknown';
  const consumes = stringList(doc.consumes);
  const out: SpecOperation[] = [];
  for (const [template, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    const shared = parametersOf(store, item.parameters);
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op) || typeof op.operationId !== 'string') continue;
      const own = parametersOf(store, op.parameters);
      const parameters = [...shared.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)), ...own];
      out.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        template,
        version,
        document: documentUrl,
        parameters,
        responses: Object.fromEntries(Object.entries(isObject(op.responses) ? op.responses : {}).map(([k, v]) => [k, follow(store, v)])),
        consumes: op.consumes === undefined ? consumes : stringList(op.consumes),
        matcher: templateMatcher(template, parameters),
        pageable: isObject(op['x-ms-pageable']) && typeof op['x-ms-pageable'].nextLinkName === 'string',
        literals: template.split('/').filter((s) => s && !s.startsWith('{')).length,
      });
    }
  }
  return out;
}

/** The operation a request's method and path are, the most specific one when several match. */
export function findOperation(operations: readonly SpecOperation[], method: string, pathname: string): { op: SpecOperation; params: Record<string, string> } | undefined {
  let best: { op: SpecOperation; params: Record<string, string> } | undefined;
  for (const op of operations) {
    if (op.method !== method.toUpperCase()) continue;
    const match = op.matcher.exec(pathname);
    if (!match || (best && best.op.literals >= op.literals)) continue;
    best = { op, params: Object.fromEntries(Object.entries(match.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)])) };
  }
  return best;
}

function parametersOf(store: SpecStore, list: JsonValue | undefined): SpecParameter[] {
  if (!Array.isArray(list)) return [];
  return list.map((p) => follow(store, p)).map((p) => {
    const where = p.in as SpecParameter['in'];
    return {
      name: String(p.name),
      in: where,
      required: p.required === true,
      ...(where === 'body' ? { schema: p.schema ?? {} } : { simple: p }),
    };
  });
}

function follow(store: SpecStore, value: JsonValue): JsonObject {
  let node: JsonValue | undefined = value;
  for (let hops = 0; isObject(node) && typeof node.$ref === 'string' && hops < 10; hops++) node = store.resolve(node.$ref);
  return isObject(node) ? node : {};
}

function stringList(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function templateMatcher(template: string, parameters: readonly SpecParameter[]): RegExp {
  const spanning = new Set(parameters.filter((p) => p.in === 'path' && p.simple?.['x-ms-skip-url-encoding'] === true).map((p) => p.name));
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const name = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (!name) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return `(?<${groupName(name)}>${spanning.has(name) ? '.+' : '[^/]+'})`;
    })
    .join('');
  return new RegExp(`^${source}/?$`);
}

/** Parameter names as regex group names (`$filter` has none of these characters; `resource-name` would). */
export function groupName(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, '_');
}
