// The bounded paged ARM read (src/azure/arm-pages.ts) the VM listings and the autoscale settings
// share, against answers made here: every page followed, and each bound and ARM failure ending
// the read with the adapter's closed set of errors, after no more requests than needed.
import { describe, expect, it } from 'vitest';
import { createHttpHeaders, type PipelineRequest, type PipelineResponse } from '@azure/core-rest-pipeline';
import { readArmPages, type ArmPagesOptions } from '../../src/azure/arm-pages.js';
import { ArmNotFoundError, ArmRequestError, RateLimitedError } from '../../src/azure/errors.js';

const ORIGIN = 'https://management.example';
const FIRST = `${ORIGIN}/subscriptions/s/resourceGroups/rg/things?api-version=1`;
const NOW = Date.UTC(2026, 11, 6, 10, 0, 0);

type Answer = { status?: number; body: string; headers?: Record<string, string> };

/** Answers in order, one per request; records the URLs asked. */
function answering(...answers: Answer[]) {
  const urls: string[] = [];
  const send = (request: PipelineRequest): Promise<PipelineResponse> => {
    urls.push(request.url);
    const a = answers[urls.length - 1] ?? { status: 500, body: '{}' };
    return Promise.resolve({ request, status: a.status ?? 200, headers: createHttpHeaders(a.headers ?? {}), bodyAsText: a.body });
  };
  return { send, urls };
}

const page = (value: unknown[], nextLink?: string) => ({ body: JSON.stringify({ value, ...(nextLink ? { nextLink } : {}) }) });
const options = (over: Partial<ArmPagesOptions> = {}): ArmPagesOptions => ({ operation: 'list things', endpoint: ORIGIN, resource: 'resource group rg', maxPages: 5, maxPageChars: 10_000, now: () => NOW, ...over });

async function read(send: ReturnType<typeof answering>['send'], over: Partial<ArmPagesOptions> = {}) {
  const items: unknown[] = [];
  await readArmPages(send, FIRST, options(over), (value) => void items.push(...value));
  return items;
}

const VMS = '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines';

describe('a paged ARM read', () => {
  it.each([
    {
      name: 'an absolute nextLink on the same origin is followed',
      answers: [page([1, 2], `${ORIGIN}/next?page=2`), page([3], `${ORIGIN}/next?page=3`), page([])],
      asked: [FIRST, `${ORIGIN}/next?page=2`, `${ORIGIN}/next?page=3`],
      items: [1, 2, 3],
    },
    {
      name: "a relative nextLink (as ARM's VirtualMachines_List answers) is resolved against the endpoint",
      answers: [page([1], `${VMS}?api-version=2024-07-01&$expand=instanceView&$skiptoken=2`), page([2])],
      asked: [FIRST, `${ORIGIN}${VMS}?api-version=2024-07-01&$expand=instanceView&$skiptoken=2`],
      items: [1, 2],
    },
    {
      name: "a bare relative nextLink (the spec example's \"a\") is resolved against the endpoint's root",
      answers: [page([1], 'a'), page([2])],
      asked: [FIRST, `${ORIGIN}/a`],
      items: [1, 2],
    },
  ])('$name', async ({ answers, asked, items }) => {
    const arm = answering(...answers);
    expect(await read(arm.send)).toEqual(items);
    expect(arm.urls).toEqual(asked);
  });

  it.each([
    { name: 'a page longer than the limit', answers: [{ body: JSON.stringify({ value: ['x'.repeat(20_000)] }) }], message: 'a page of more than 10000 characters', requests: 1 },
    { name: 'a nextLink to another origin (the token goes nowhere else)', answers: [page([1], 'https://elsewhere.example/next')], message: 'nextLink to another origin (https://elsewhere.example), not followed', requests: 1 },
    { name: 'a protocol-relative nextLink to another host', answers: [page([1], '//elsewhere.example/subscriptions/s?$skiptoken=2')], message: 'nextLink to another origin (https://elsewhere.example), not followed', requests: 1 },
    { name: 'a nextLink that is no URL', answers: [page([1], 'http://[oops')], message: 'list things: page 1 (/subscriptions/s/resourceGroups/rg/things): the nextLink is not a URL', requests: 1 },
    { name: 'a later page that is not JSON, named by its number and path', answers: [page([1], `${VMS}?$skiptoken=2`), { body: '<html>' }], message: `list things: page 2 (${VMS}): the answer is not JSON`, requests: 2 },
    { name: 'more pages than allowed', answers: Array.from({ length: 9 }, () => page([], `${ORIGIN}/again`)), message: 'more than 5 pages, stopped', requests: 5 },
    { name: 'an answer that is not JSON', answers: [{ body: '<html>' }], message: 'the answer is not JSON', requests: 1 },
    { name: 'an answer without a value list', answers: [{ body: '{"value":{}}' }], message: 'the answer has no "value" list', requests: 1 },
  ])('stops at $name', async ({ answers, message, requests }) => {
    const arm = answering(...answers);
    const err = await read(arm.send).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArmRequestError);
    expect((err as Error).message).toContain(message);
    expect(arm.urls).toHaveLength(requests);
  });

  it("turns ARM's failures into the closed set, its code and message kept", async () => {
    const throttled = answering({ status: 429, body: '{"error":{"code":"TooManyRequests","message":"slow down"}}', headers: { 'retry-after': '30' } });
    const limited = await read(throttled.send).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitedError);
    expect((limited as RateLimitedError).retryAfterMs).toBe(30_000);

    const missing = await read(answering({ status: 404, body: '{"error":{"code":"ResourceGroupNotFound","message":"Resource group \'rg\' could not be found."}}' }).send).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ArmNotFoundError);
    expect((missing as Error).message).toContain("Resource group 'rg' could not be found.");

    const forbidden = await read(answering({ status: 403, body: '{"error":{"code":"AuthorizationFailed","message":"no read"}}' }).send).catch((e: unknown) => e);
    expect(forbidden).toBeInstanceOf(ArmRequestError);
    expect((forbidden as ArmRequestError).code).toBe('AuthorizationFailed');
  });

  it('names the page and its path, never its query, when a later request fails', async () => {
    const secret = '$skiptoken=opaque-state';
    const arm = answering(page([1], `${VMS}?${secret}`), { status: 500, body: '{"error":{"code":"InternalServerError","message":"try later"}}' });
    const err = await read(arm.send).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArmRequestError);
    expect((err as Error).message).toBe(`list things: page 2 (${VMS}): try later`);
    expect((err as Error).message).not.toContain('skiptoken');
  });

  it('sends nothing once the signal is aborted', async () => {
    const arm = answering(page([1]));
    await expect(read(arm.send, { abortSignal: AbortSignal.abort(new Error('the pass ran out of time')) })).rejects.toBeInstanceOf(Error);
    expect(arm.urls).toHaveLength(0);
  });
});
