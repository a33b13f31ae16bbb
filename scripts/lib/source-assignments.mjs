/**
 * The Azure role assignments Drover's identity needs for the configured load sources, from their
 * kinds' own grants (src/load/grants.ts `sourceGrants`, compiled into dist/; each kind's `grants`
 * in src/load/*-source.ts): the post-provision hook makes exactly these. Pure: the placed grants
 * and the resources the hook listed in; assignments, and the grants that cannot be placed, out.
 * The Kubernetes grants are not here: scripts/kubernetes-rbac.mjs writes them into the Role.
 *
 * A grant's scope is a resource the configuration names, or one found by a property (a storage
 * account by name, a workspace by its query endpoint) among the resources of its type, with the
 * kind's suffix appended (a queue below its account). Exactly one match is needed: none or
 * several leave the grant to the operator, never a wider scope (a group or the subscription).
 */

/** Properties `az resource list` answers with; any other one needs the full resource (`az resource show`). */
const LISTED_PROPERTIES = new Set(['id', 'name', 'type', 'location', 'resourceGroup', 'kind']);

/**
 * The listings the hook must fetch: one per resource type a grant looks up, and whether its
 * matching property is only in the full resource.
 * @param {readonly { grant: import('../../src/load/source-kind.js').SourceGrant }[]} placed
 * @returns {{ resourceType: string, needsProperties: boolean }[]}
 */
export function lookupsOf(placed) {
  const byType = new Map();
  for (const { grant } of placed) {
    if (grant.kind !== 'azureRole' || !('lookup' in grant.scope)) continue;
    const { resourceType, property } = grant.scope.lookup;
    byType.set(resourceType, Boolean(byType.get(resourceType)) || !LISTED_PROPERTIES.has(property));
  }
  return [...byType].map(([resourceType, needsProperties]) => ({ resourceType, needsProperties }));
}

/**
 * @param {readonly { at: string, grant: import('../../src/load/source-kind.js').SourceGrant }[]} placed  sourceGrants(config)
 * @param {{ principalId: string, resources: Readonly<Record<string, readonly { id: string }[]>> }} found
 *   `resources`: per resource type of lookupsOf, the resources the hook listed (full ones when it needed their properties)
 * @returns {{ assignments: { role: string, roleName: string, scope: string, principal: string, sources: string[], why: string }[], unplaced: { at: string, roleName: string, message: string }[] }}
 */
export function sourceAssignments(placed, { principalId, resources }) {
  const assignments = new Map();
  const unplaced = [];
  for (const { at, grant } of placed) {
    if (grant.kind !== 'azureRole') continue;
    const scope = scopeOf(grant.scope, resources);
    if (!scope.ok) {
      unplaced.push({ at, roleName: grant.roleName, message: `${at}: ${scope.error}; assign ${grant.roleName} (${grant.roleId}) on it by hand, for ${grant.why}` });
      continue;
    }
    const key = `${grant.roleId} ${scope.id.toLowerCase()}`;
    const same = assignments.get(key);
    if (same) same.sources.push(at);
    else assignments.set(key, { role: grant.roleId, roleName: grant.roleName, scope: scope.id, principal: principalId, sources: [at], why: grant.why });
  }
  return { assignments: [...assignments.values()], unplaced };
}

/** @returns {{ ok: true, id: string } | { ok: false, error: string }} */
function scopeOf(scope, resources) {
  if ('resourceId' in scope) return { ok: true, id: scope.resourceId };
  const { resourceType, property, equals } = scope.lookup;
  const matches = (resources[resourceType] ?? []).filter((r) => sameValue(valueAt(r, property), equals));
  const what = `${resourceType} whose ${property} is ${equals}`;
  if (matches.length === 1) return { ok: true, id: `${matches[0].id}${scope.suffix ?? ''}` };
  if (matches.length === 0) return { ok: false, error: `no ${what} was found in this subscription` };
  return { ok: false, error: `${matches.length} resources are ${what} (${matches.map((r) => r.id).join(', ')}), so which one is meant is ambiguous` };
}

/** `properties.metrics.prometheusQueryEndpoint` of a resource. */
function valueAt(resource, property) {
  return property.split('.').reduce((value, key) => (value !== null && typeof value === 'object' ? value[key] : undefined), resource);
}

/** Azure names are case-insensitive, and an endpoint may be written with a trailing slash. */
function sameValue(value, equals) {
  const normal = (text) => text.replace(/\/+$/, '').toLowerCase();
  return typeof value === 'string' && normal(value) === normal(equals);
}
