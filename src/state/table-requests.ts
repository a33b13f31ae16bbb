/**
 * Table requests Drover builds itself and sends through the TableClient's own pipeline (its
 * shared key or token policy, retries, the per-try timeout, the stall watch and the tables'
 * re-creation), so authentication, retries and deadlines stay the SDK's while the SDK's
 * per-operation serialisers, which cost more CPU than the request itself, are skipped: a `$batch`
 * (batch.ts) and a point read. Answers are parsed here; a failure becomes one of the storage
 * error set (errors.ts) naming the operation.
 */
import type { TableClient } from '@azure/data-tables';
import { RestError, createDefaultHttpClient, createHttpHeaders, createPipelineRequest, type HttpClient, type PipelineResponse } from '@azure/core-rest-pipeline';
import { storageError } from './errors.js';
import { escapeKey } from './keys.js';

let sharedHttpClient: HttpClient | undefined;

/** The account's table endpoint (the client's URL without the table). */
export function tablesBase(client: TableClient): string {
  return client.url.replace(/\/+$/, '');
}

/** `/{table}(PartitionKey='…',RowKey='…')`, keys escaped as Drover stores them and quoted for OData. */
export function entityUrl(client: TableClient, partitionKey: string, rowKey: string): string {
  const quote = (key: string) => encodeURIComponent(escapeKey(key).replace(/'/g, "''"));
  return `${tablesBase(client)}/${client.tableName}(PartitionKey='${quote(partitionKey)}',RowKey='${quote(rowKey)}')`;
}

/** Sends a request through the client's pipeline; a transport failure is a storage error naming `operation`. */
export async function sendTableRequest(
  client: TableClient,
  operation: string,
  request: { method: 'GET' | 'POST'; url: string; headers: Record<string, string>; body?: string; abortSignal?: AbortSignal },
): Promise<PipelineResponse> {
  const pipelineRequest = createPipelineRequest({
    url: request.url,
    method: request.method,
    headers: createHttpHeaders({ 'x-ms-version': '2019-02-02', DataServiceVersion: '3.0;', ...request.headers }),
    // Azurite answers on plain http; the account's endpoint in Azure is https.
    allowInsecureConnection: request.url.startsWith('http:'),
    ...(request.body === undefined ? {} : { body: request.body }),
    ...(request.abortSignal ? { abortSignal: request.abortSignal } : {}),
  });
  try {
    return await client.pipeline.sendRequest((sharedHttpClient ??= createDefaultHttpClient()), pipelineRequest);
  } catch (err) {
    throw storageError(err, operation);
  }
}

/** An answer other than `ok` as a storage error naming `operation`, with the service's message and code. */
export function failedAnswer(status: number, text: string, operation: string): Error {
  const { message, code } = serviceError(text);
  return storageError(new RestError(message ?? `status ${status}`, { statusCode: status, code }), operation);
}

/** A point read's answer (`odata=nometadata`): the entity's properties, ETag and Timestamp; undefined for a 404. */
export async function readEntity(client: TableClient, partitionKey: string, rowKey: string, operation: string): Promise<{ entity: Record<string, unknown>; etag: string; date: string | undefined } | undefined> {
  const response = await sendTableRequest(client, operation, { method: 'GET', url: entityUrl(client, partitionKey, rowKey), headers: { accept: 'application/json;odata=nometadata' } });
  const text = response.bodyAsText ?? '';
  // Not there (nor, as the SDK's read answered, its table).
  if (response.status === 404) return undefined;
  if (response.status !== 200) throw failedAnswer(response.status, text, operation);
  let entity: Record<string, unknown>;
  try {
    entity = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw failedAnswer(502, '', `${operation}: the answer is not JSON`);
  }
  return { entity, etag: response.headers.get('etag') ?? '', date: response.headers.get('date') };
}

/** The service's error code and the first line of its message in an answer, where it has them. */
export function serviceError(text: string): { message?: string; code?: string } {
  const start = text.indexOf('{');
  if (start < 0) return {};
  try {
    const body = JSON.parse(text.slice(start, text.lastIndexOf('}') + 1)) as { 'odata.error'?: { code?: string; message?: { value?: string } } };
    const error = body['odata.error'];
    return { message: error?.message?.value?.split('\n')[0]?.trim(), code: error?.code };
  } catch (err) {
    if (err instanceof SyntaxError) return {};
    throw err;
  }
}
