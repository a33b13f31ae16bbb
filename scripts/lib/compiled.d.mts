import type { DroverConfig } from '../../src/config/schema.js';
import type { PlacedGrant } from '../../src/load/grants.js';

export function compiled(module: string): Promise<Record<string, unknown>>;
export function configWithGrants(file: string): Promise<{ config: DroverConfig; grants: PlacedGrant[] }>;
