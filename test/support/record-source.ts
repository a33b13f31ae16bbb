/**
 * Names the running test file for the exchange recorder (sim/recorder.ts), so that the API check
 * can tell Drover's traffic from the simulators' own tests, which send malformed requests on
 * purpose (sim/api-check/deliberate.ts). Hosts the test starts inherit the name with the environment.
 */
import path from 'node:path';
import { beforeAll, expect } from 'vitest';
import { RECORD_SOURCE_ENV } from '../../sim/recorder.js';

beforeAll(() => {
  const file = expect.getState().testPath;
  if (file) process.env[RECORD_SOURCE_ENV] = path.relative(process.cwd(), file).split(path.sep).join('/');
});
