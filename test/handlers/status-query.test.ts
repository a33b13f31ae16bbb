/** The status function refuses a query parameter it cannot honour, naming it, instead of guessing. */
import azureFunctions from '@azure/functions';
import { beforeAll, describe, expect, it } from 'vitest';
import { status } from '../../src/handlers/registrations.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { azuriteStorage, writeConfig } from '../support/config.js';

let rt: Runtime;
beforeAll(async () => {
  rt = await createRuntime({ configFile: writeConfig({ storage: azuriteStorage() }), env: {} });
  await rt.storage.ensure();
});

const context = () => new azureFunctions.InvocationContext({ functionName: 'status', logHandler: () => undefined });
const get = (query: string, accept = 'text/html') =>
  status.handler(rt, new azureFunctions.HttpRequest({ url: `http://localhost/api/status${query}`, method: 'GET', headers: { accept } }), context());

describe('GET /api/status with a query it cannot honour', () => {
  it.each([
    { query: '?format=xml', parameter: 'format', error: 'format: expected "json" or "html", got "xml"' },
    { query: '?refresh=abc', parameter: 'refresh', error: 'refresh: expected a whole number of seconds (0: never reload), got "abc"' },
    { query: '?refresh=-5', parameter: 'refresh', error: 'refresh: expected a whole number of seconds (0: never reload), got "-5"' },
    { query: '?format=html&decisions=lots', parameter: 'decisions', error: 'decisions: expected a whole number of decisions (at most 500 are shown), got "lots"' },
  ])('$query: 400 naming $parameter', async ({ query, parameter, error }) => {
    const res = await get(query);
    expect(res).toMatchObject({ status: 400, jsonBody: { error, parameter } });
  });

  it('answers what it can honour as before', async () => {
    expect((await get('?format=json&refresh=30&decisions=5')).status).toBe(200);
    const page = await get('?refresh=0&code=k');
    expect(page.status).toBe(200);
    expect(String(page.body)).toContain('<!doctype html>');
  });
});
