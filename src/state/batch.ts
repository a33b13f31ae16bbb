/**
 * Table `$batch` transactions written by Drover, sent through the TableClient's own pipeline
 * (`client.pipeline`: its shared key or token policy, retries, per-try timeout and logging;
 * table-requests.ts), so authentication, retries and deadlines stay the SDK's. What Drover adds over the SDK's
 * `submitTransaction`: conditional deletes (If-Match on a DELETE, which the SDK's transactions
 * cannot send), each operation's status and ETag in order, a refused batch naming the operation
 * that failed, and a fraction of the client CPU (the SDK builds each sub-request by running a
 * whole intercepted pipeline per entity).
 */
import { randomUUID } from 'node:crypto';
import type { TableClient } from '@azure/data-tables';
import { escapeKey } from './keys.js';
import { batchError, StorageRequestError, type FailedOperation } from './errors.js';
import { failedAnswer, sendTableRequest, serviceError, tablesBase } from './table-requests.js';

/** A row's properties (entity-table.ts `Props`, spelled here so the two modules do not import each other). */
type Props = Record<string, string | number | boolean | undefined>;

export type BatchOp =
  /** Must not exist yet (409 if it does). */
  | { kind: 'insert'; rowKey: string; props: Props }
  /** Only if the row still carries `etag` (412 if it moved on, 404 if it is gone). */
  | { kind: 'replace'; rowKey: string; etag: string; props: Props }
  /** Whatever is there (insert or replace). */
  | { kind: 'upsert'; rowKey: string; props: Props }
  /** Only if the row still carries `etag` ('*': whatever it carries; 404 if it is gone). */
  | { kind: 'delete'; rowKey: string; etag: string };

export interface OpResult {
  status: number;
  /** The row's new ETag (absent for a delete). */
  etag?: string;
}

/** What the service takes in one batch (more is refused whole: 400). */
export const MAX_BATCH_OPS = 100;

const CRLF = '\r\n';

/**
 * Sends `ops` on one partition as one all-or-nothing transaction. Resolves with one result per
 * operation, in order; rejects with one of the storage error set, carrying `failedOperation`
 * when the service refused a particular operation (412, 409, 404…) and rolled the batch back.
 */
export async function submitBatch(
  client: TableClient,
  partitionKey: string,
  ops: readonly BatchOp[],
  options: { abortSignal?: AbortSignal } = {},
): Promise<OpResult[]> {
  const operation = `tables/${client.tableName} batch ${partitionKey}`;
  if (ops.length === 0) return [];
  if (ops.length > MAX_BATCH_OPS) throw new StorageRequestError(operation, undefined, `${ops.length} operations, at most ${MAX_BATCH_OPS} in a batch`);
  const base = tablesBase(client);
  const batchId = randomUUID();
  const changesetId = randomUUID();
  const response = await sendTableRequest(client, operation, {
    url: `${base}/$batch`,
    method: 'POST',
    body: batchBody(`${base}/${client.tableName}`, escapeKey(partitionKey), ops, batchId, changesetId),
    headers: { accept: 'application/json', MaxDataServiceVersion: '3.0;NetFx', 'Content-Type': `multipart/mixed; boundary=batch_${batchId}` },
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
  const text = response.bodyAsText ?? '';
  if (response.status < 200 || response.status >= 300) throw failedAnswer(response.status, text, operation);
  return parseResponses(text, ops, operation);
}

function batchBody(tableUrl: string, escapedPk: string, ops: readonly BatchOp[], batchId: string, changesetId: string): string {
  const parts: string[] = [`--batch_${batchId}${CRLF}Content-Type: multipart/mixed; boundary=changeset_${changesetId}${CRLF}`];
  const pkInUrl = encodeURIComponent(escapedPk.replace(/'/g, "''"));
  for (const op of ops) {
    const rk = escapeKey(op.rowKey);
    const entityUrl = `${tableUrl}(PartitionKey='${pkInUrl}',RowKey='${encodeURIComponent(rk.replace(/'/g, "''"))}')`;
    const head = `--changeset_${changesetId}${CRLF}Content-Type: application/http${CRLF}Content-Transfer-Encoding: binary${CRLF}${CRLF}`;
    switch (op.kind) {
      case 'insert':
        parts.push(`${head}POST ${tableUrl} HTTP/1.1${CRLF}Content-Type: application/json${CRLF}Accept: application/json;odata=minimalmetadata${CRLF}DataServiceVersion: 3.0${CRLF}Prefer: return-no-content${CRLF}${CRLF}${entityJson(escapedPk, rk, op.props)}`);
        break;
      case 'replace':
      case 'upsert': {
        const ifMatch = op.kind === 'replace' ? `If-Match: ${op.etag}${CRLF}` : '';
        parts.push(`${head}PUT ${entityUrl} HTTP/1.1${CRLF}Content-Type: application/json${CRLF}Accept: application/json${CRLF}DataServiceVersion: 3.0${CRLF}${ifMatch}${CRLF}${entityJson(escapedPk, rk, op.props)}`);
        break;
      }
      case 'delete':
        parts.push(`${head}DELETE ${entityUrl} HTTP/1.1${CRLF}Accept: application/json;odata=minimalmetadata${CRLF}DataServiceVersion: 3.0${CRLF}If-Match: ${op.etag}${CRLF}${CRLF}`);
        break;
    }
  }
  return `${parts.join(CRLF)}${CRLF}--changeset_${changesetId}--${CRLF}--batch_${batchId}--${CRLF}`;
}

/** The entity as the SDK serialises it: plain JSON values, undefined properties left out. */
function entityJson(escapedPk: string, escapedRk: string, props: Props): string {
  const entity: Props = { PartitionKey: escapedPk, RowKey: escapedRk };
  for (const k in props) if (props[k] !== undefined) entity[k] = props[k];
  return JSON.stringify(entity);
}

/**
 * One result per operation from the multipart answer. A refused batch answers with a single
 * sub-response: the failing operation's status and an error whose message starts with its
 * index ("57:The update condition…"); Content-ID (1-based) is the fallback.
 */
function parseResponses(text: string, ops: readonly BatchOp[], operation: string): OpResult[] {
  const results: OpResult[] = [];
  let at = text.indexOf('HTTP/1.1 ');
  while (at >= 0) {
    const status = Number(text.slice(at + 9, at + 12));
    const next = text.indexOf('HTTP/1.1 ', at + 12);
    const part = text.slice(at, next < 0 ? text.length : next);
    if (!(status >= 200 && status < 300)) throw refused(part, status, results.length, ops, operation);
    const etag = headerValue(part, 'etag');
    results.push(etag === undefined ? { status } : { status, etag });
    at = next;
  }
  if (results.length !== ops.length) throw new StorageRequestError(operation, undefined, `the batch answered ${results.length} of ${ops.length} operations`);
  return results;
}

function refused(part: string, status: number, position: number, ops: readonly BatchOp[], operation: string) {
  const answer = serviceError(part);
  const detail = answer.message ?? `status ${status}`;
  const byMessage = /^(\d+):/.exec(detail)?.[1];
  const contentId = headerValue(part, 'content-id');
  const index = byMessage !== undefined ? Number(byMessage) : contentId !== undefined ? Number(contentId) - 1 : position;
  const op = ops[index] ?? ops[position];
  const failed: FailedOperation = { index, kind: op?.kind ?? '?', rowKey: op?.rowKey ?? '?', status, code: answer.code };
  return batchError(operation, failed, detail);
}

function headerValue(part: string, name: string): string | undefined {
  const end = part.indexOf(`${CRLF}${CRLF}`);
  for (const line of (end < 0 ? part : part.slice(0, end)).split(CRLF)) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === name) return line.slice(colon + 1).trim();
  }
  return undefined;
}
