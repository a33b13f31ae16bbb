/**
 * The check of recorded exchanges (sim/recorder.ts) against the specifications: the request's
 * method and path name an operation, its required parameters are there and no undeclared query
 * parameter is, its api-version maps to the specification's (versions.ts), its body matches the
 * schema with no field the schema does not have; the answer carries a status the operation
 * declares (an error status may be the `default` one) and a body matching that response's schema.
 * An answer tagged as a scripted fault is not checked; its request is.
 */
import type { RecordedExchange } from '../recorder.js';
import { findOperation, type SpecOperation } from './operations.js';
import { isObject, type JsonObject, type JsonValue } from './specs.js';
import { knownDifference, specVersionFor } from './versions.js';

export interface Violation {
  /** `METHOD path (operationId)`. */
  call: string;
  rule: string;
}

export interface SchemaCheck {
  /** Errors of `value` against `schema` (absolute `$ref`s); none when valid. */
  errors(schema: JsonValue, value: unknown): string[];
  /** Property paths in `value` that `schema` does not declare (for request bodies). */
  unknownFields(schema: JsonValue, value: unknown): string[];
}

export interface ServiceSpecs {
  operations: readonly SpecOperation[];
  /** Requests no specification covers by design, checked for nothing (ARM's operation-status polls). */
  exempt?: RegExp;
  /** Where the paths of the specification do not reach (custom resources' scale): the operation standing in. */
  standIn?: (method: string, pathname: string) => { op: SpecOperation; name: string } | undefined;
  /** An error answer in the API's own convention (Kubernetes: a Status object), valid whatever its status. */
  errorSchema?: JsonValue;
  /** Whether the service carries an api-version query parameter to map. */
  apiVersions: boolean;
}

export interface CheckResult {
  /** The operation the exchange was, when one matched. */
  operation?: string;
  violations: Violation[];
}

export function checkExchange(specs: ServiceSpecs, schemas: SchemaCheck, exchange: RecordedExchange): CheckResult {
  const url = new URL(exchange.request.url, 'http://recorded');
  const method = exchange.request.method.toUpperCase();
  if (specs.exempt?.test(url.pathname)) return { violations: [] };
  const found = findOperation(specs.operations, method, url.pathname);
  const standIn = found ? undefined : specs.standIn?.(method, url.pathname);
  const op = found?.op ?? standIn?.op;
  const name = standIn?.name ?? op?.operationId;
  const call = `${method} ${url.pathname}${name ? ` (${name})` : ''}`;
  if (!op || !name) return { violations: [{ call, rule: 'no operation of the specifications has this method and path' }] };
  const rules = [...requestRules(specs, schemas, op, url, exchange), ...(exchange.fault ? [] : answerRules(specs, schemas, op, exchange))];
  return { operation: name, violations: rules.map((rule) => ({ call, rule })) };
}

function requestRules(specs: ServiceSpecs, schemas: SchemaCheck, op: SpecOperation, url: URL, exchange: RecordedExchange): string[] {
  const out: string[] = [];
  const headers = exchange.request.headers;
  for (const p of op.parameters) {
    if (!p.required) continue;
    const present = p.in === 'query' ? url.searchParams.has(p.name) : p.in === 'header' ? p.name.toLowerCase() in headers : p.in === 'body' ? exchange.request.body !== undefined : true;
    if (!present) out.push(`required ${p.in} parameter ${p.name} is missing`);
  }
  for (const name of new Set(url.searchParams.keys())) {
    // A later page is the service's own nextLink followed as given: its $skiptoken is the service's.
    const nextPage = op.pageable && name === '$skiptoken';
    if (!nextPage && !op.parameters.some((p) => p.in === 'query' && p.name === name) && !knownDifference(op.operationId, name)) out.push(`query parameter ${name} is not declared by ${op.operationId}`);
  }
  if (specs.apiVersions && url.searchParams.has('api-version')) {
    const sent = url.searchParams.get('api-version');
    if (!specVersionFor(sent, op.version)) out.push(`api-version ${sent} has no entry mapping it to the specification's ${op.version}`);
  }
  out.push(...bodyRules(schemas, op, exchange));
  return out;
}

function bodyRules(schemas: SchemaCheck, op: SpecOperation, exchange: RecordedExchange): string[] {
  const body = exchange.request.body;
  const param = op.parameters.find((p) => p.in === 'body');
  if (body === undefined) return [];
  if (!param) return ['a request body where the operation takes none'];
  if (op.method === 'PATCH' && op.consumes.some((c) => c.includes('patch'))) return patchRules(op, exchange);
  const schema = param.schema ?? {};
  return [
    ...schemas.errors(schema, body).map((e) => `request body: ${e}`),
    ...schemas.unknownFields(schema, body).map((f) => `request body: ${f} is not in the schema`),
  ];
}

/** Kubernetes PATCH: the body's shape follows its Content-Type, one the operation consumes. */
function patchRules(op: SpecOperation, exchange: RecordedExchange): string[] {
  const type = (exchange.request.headers['content-type'] ?? '').split(';')[0]!.trim();
  if (!op.consumes.includes(type)) return [`Content-Type ${JSON.stringify(type)} is not one ${op.operationId} consumes (${op.consumes.join(', ')})`];
  const body = exchange.request.body;
  if (type === 'application/json-patch+json') {
    const valid = Array.isArray(body) && body.every((o) => isObject(o) && typeof o.op === 'string' && typeof o.path === 'string' && ['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(o.op));
    return valid ? [] : ['request body: a json-patch+json body must be an RFC 6902 array of operations ({op, path, …})'];
  }
  return isObject(body) ? [] : [`request body: a ${type} body must be a JSON object`];
}

function answerRules(specs: ServiceSpecs, schemas: SchemaCheck, op: SpecOperation, exchange: RecordedExchange): string[] {
  const answer = exchange.response;
  if (!answer) return ['no answer, and no scripted fault says why'];
  const status = String(answer.status);
  const isError = answer.status >= 400;
  if (isError && specs.errorSchema && schemas.errors(specs.errorSchema, answer.body).length === 0) return [];
  const declared = op.responses[status] ?? (isError ? op.responses.default : undefined);
  if (!declared) return [`answer status ${status} is not one ${op.operationId} declares (${Object.keys(op.responses).join(', ')})`];
  const schema: JsonValue | undefined = (declared as JsonObject).schema;
  if (schema === undefined) return [];
  if (answer.body === undefined) return [`answer ${status} has no body; the specification gives it one`];
  return schemas.errors(schema, answer.body).map((e) => `answer ${status} body: ${e}`);
}
