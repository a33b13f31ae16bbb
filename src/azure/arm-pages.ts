/**
 * A paged ARM list read through a pipeline (a client's own: its credential, CA trust and
 * per-request timeout), for the requests the compute adapter builds itself (vm-listing.ts,
 * autoscale-settings.ts). Bounded: at most `maxPages` pages of `maxPageChars` each, and a
 * nextLink only to the first page's origin (the bearer token goes nowhere else). Errors are the
 * compute adapter's closed set (errors.ts), ARM's own error code and message kept.
 */
import { RestError, createPipelineRequest, type PipelineRequest, type PipelineResponse } from '@azure/core-rest-pipeline';
import { AbortedError, reasonOf } from '../deadline.js';
import { armErrorCodeOf, translateArmError } from './error-translation.js';
import { ArmRequestError } from './errors.js';

export type SendRequest = (request: PipelineRequest) => Promise<PipelineResponse>;

export interface ArmPagesOptions {
  operation: string;
  /** `azure.resourceManagerEndpoint`: a relative nextLink is resolved against it, and an absolute one must have its origin. */
  endpoint: string;
  /** What the list is of, for error messages: `scale set rg/vmss`. */
  resource: string;
  maxPages: number;
  maxPageChars: number;
  /** Said after "more than N pages, stopped". */
  pagesNote?: string;
  abortSignal?: AbortSignal;
  now: () => number;
}

/** Reads every page from `url` on, handing each page's `value` items (raw) and its response to `onPage`, which may throw to stop. */
export async function readArmPages(send: SendRequest, url: string, options: ArmPagesOptions, onPage: (items: unknown[], response: PipelineResponse) => void): Promise<void> {
  const { operation, abortSignal } = options;
  let next: string | undefined = url;
  let pages = 0;
  let where = `page 1 (${pathOf(url)})`;
  let errorBody: string | undefined;
  try {
    while (next) {
      if (abortSignal?.aborted) throw new AbortedError(reasonOf(abortSignal).message);
      if (++pages > options.maxPages) throw new ArmRequestError(operation, undefined, undefined, `more than ${options.maxPages} pages, stopped${options.pagesNote ? ` (${options.pagesNote})` : ''}`);
      where = `page ${pages} (${pathOf(next)})`;
      const response = await send(createPipelineRequest({ url: next, method: 'GET', ...(abortSignal ? { abortSignal } : {}) }));
      const text = response.bodyAsText ?? '';
      if (response.status !== 200) {
        errorBody = text.slice(0, 8_192);
        throw new RestError(`ARM answered ${response.status}`, { statusCode: response.status, response, code: armErrorCodeOf(errorBody) });
      }
      if (text.length > options.maxPageChars) throw new ArmRequestError(operation, 200, undefined, `${where}: a page of more than ${options.maxPageChars} characters, stopped`);
      const page = parsePage(text, operation, where);
      onPage(page.value, response);
      next = page.nextLink === undefined ? undefined : nextPageUrl(page.nextLink, options.endpoint, operation, where);
    }
  } catch (error) {
    throw translateArmError(error, { operation, resource: options.resource, afterFirstPage: pages > 1, errorBody, where }, options.now());
  }
}

/** A nextLink as the URL to ask: a relative one against the endpoint; an absolute one only on the endpoint's origin. */
export function nextPageUrl(link: string, endpoint: string, operation: string, where: string): string {
  let resolved: URL;
  try {
    resolved = new URL(link, endpoint);
  } catch {
    throw new ArmRequestError(operation, 200, undefined, `${where}: the nextLink is not a URL, not followed`);
  }
  const origin = new URL(endpoint).origin;
  if (resolved.origin !== origin) throw new ArmRequestError(operation, 200, undefined, `${where}: nextLink to another origin (${resolved.origin}), not followed`);
  return resolved.href;
}

/** A URL's path for an error message, without its query; a text that is no URL is not repeated. */
function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return 'an invalid URL';
  }
}

function parsePage(text: string, operation: string, where: string): { value: unknown[]; nextLink: string | undefined } {
  let body: { value?: unknown; nextLink?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new ArmRequestError(operation, 200, undefined, `${where}: the answer is not JSON`);
  }
  if (!Array.isArray(body?.value)) throw new ArmRequestError(operation, 200, undefined, `${where}: the answer has no "value" list`);
  return { value: body.value, nextLink: typeof body.nextLink === 'string' && body.nextLink !== '' ? body.nextLink : undefined };
}
