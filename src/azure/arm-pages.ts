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
  const origin = new URL(url).origin;
  let next: string | undefined = url;
  let pages = 0;
  let errorBody: string | undefined;
  try {
    while (next) {
      if (abortSignal?.aborted) throw new AbortedError(reasonOf(abortSignal).message);
      if (++pages > options.maxPages) throw new ArmRequestError(operation, undefined, undefined, `more than ${options.maxPages} pages, stopped${options.pagesNote ? ` (${options.pagesNote})` : ''}`);
      const response = await send(createPipelineRequest({ url: next, method: 'GET', ...(abortSignal ? { abortSignal } : {}) }));
      const text = response.bodyAsText ?? '';
      if (response.status !== 200) {
        errorBody = text.slice(0, 8_192);
        throw new RestError(`ARM answered ${response.status}`, { statusCode: response.status, response, code: armErrorCodeOf(errorBody) });
      }
      if (text.length > options.maxPageChars) throw new ArmRequestError(operation, 200, undefined, `a page of more than ${options.maxPageChars} characters, stopped`);
      const page = parsePage(text, operation);
      onPage(page.value, response);
      next = page.nextLink;
      if (next !== undefined && new URL(next).origin !== origin) throw new ArmRequestError(operation, 200, undefined, `nextLink to another origin (${new URL(next).origin}), not followed`);
    }
  } catch (error) {
    throw translateArmError(error, { operation, resource: options.resource, afterFirstPage: pages > 1, errorBody }, options.now());
  }
}

function parsePage(text: string, operation: string): { value: unknown[]; nextLink: string | undefined } {
  let body: { value?: unknown; nextLink?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new ArmRequestError(operation, 200, undefined, 'the answer is not JSON');
  }
  if (!Array.isArray(body?.value)) throw new ArmRequestError(operation, 200, undefined, 'the answer has no "value" list');
  return { value: body.value, nextLink: typeof body.nextLink === 'string' && body.nextLink !== '' ? body.nextLink : undefined };
}
