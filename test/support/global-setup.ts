import type { TestProject } from 'vitest/node';
import { startAzurite } from '../../sim/azurite.js';

declare module 'vitest' {
  export interface ProvidedContext {
    azuriteConnection: string;
  }
}

/** One in-memory Azurite for the whole run; each test isolates itself with its own table prefix. */
export default async function setup(project: TestProject) {
  const azurite = await startAzurite();
  project.provide('azuriteConnection', azurite.connectionString);
  return async () => {
    await azurite.stop();
  };
}
