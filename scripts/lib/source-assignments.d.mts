import type { SourceGrant } from '../../src/load/source-kind.js';

export interface SourceAssignment {
  /** The role definition's id (a GUID of a built-in role). */
  role: string;
  roleName: string;
  scope: string;
  principal: string;
  /** The sources that need it (`targets[0].load`), one assignment however many. */
  sources: string[];
  why: string;
}

export interface UnplacedGrant {
  at: string;
  roleName: string;
  message: string;
}

export function lookupsOf(placed: readonly { grant: SourceGrant }[]): { resourceType: string; needsProperties: boolean }[];
export function sourceAssignments(
  placed: readonly { at: string; grant: SourceGrant }[],
  found: { principalId: string; resources: Readonly<Record<string, readonly { id: string }[]>> },
): { assignments: SourceAssignment[]; unplaced: UnplacedGrant[] };
