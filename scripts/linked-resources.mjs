/**
 * The resources a scale set model references that ARM may check when a scale-out creates
 * instances (subnet join, load balancer and application gateway pools, security groups, public
 * IP prefixes, user-assigned identities, images, disk encryption sets), each with the scope the
 * linked-resource role is assigned at. Pure: the model as `az vmss show` prints it in, scopes out.
 *
 * The model is walked as a whole rather than by known paths, so a reference in a place this file
 * does not name is still found; a referenced type with no linked action known is reported, not
 * silently skipped.
 */

/** Provider/type of the resource a role is assigned on → the linked actions of roles.json it answers. */
export const LINKED_TYPES = {
  'Microsoft.Network/virtualNetworks/subnets': 'subnet join',
  'Microsoft.Network/loadBalancers': 'backend pool, inbound NAT pool and probe join',
  'Microsoft.Network/applicationGateways': 'backend pool join',
  'Microsoft.Network/networkSecurityGroups': 'join',
  'Microsoft.Network/applicationSecurityGroups': 'IP configuration join',
  'Microsoft.Network/publicIPPrefixes': 'join',
  'Microsoft.ManagedIdentity/userAssignedIdentities': 'assign',
  'Microsoft.Compute/galleries': 'image version read',
  'Microsoft.Compute/images': 'read',
  'Microsoft.Compute/diskEncryptionSets': 'read',
};

const RESOURCE_ID = /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/([^/]+)\/([^/]+)\/([^/]+)(?:\/([^/]+)\/([^/]+))?/i;

/**
 * Where to assign: a subnet itself (the narrowest scope ARM checks a join on), else the
 * top-level resource (a load balancer for its pools and probes, a gallery for its images).
 */
export function scopeOf(id) {
  const m = RESOURCE_ID.exec(id);
  if (!m) return undefined;
  const [, provider, type, , childType] = m;
  const isSubnet = provider.toLowerCase() === 'microsoft.network' && type.toLowerCase() === 'virtualnetworks' && childType?.toLowerCase() === 'subnets';
  const scope = isSubnet ? m[0] : m[0].split('/').slice(0, 9).join('/');
  const kind = isSubnet ? 'Microsoft.Network/virtualNetworks/subnets' : `${provider}/${type}`;
  const known = Object.keys(LINKED_TYPES).find((k) => k.toLowerCase() === kind.toLowerCase());
  return { scope, type: known ?? kind, known: known !== undefined };
}

/** `{ scopes: [{ scope, type, from }], unknown: [{ id, from }] }`, each scope once. */
export function linkedScopes(model) {
  const found = new Map();
  const unknown = [];
  const self = typeof model?.id === 'string' ? model.id.toLowerCase() : undefined;
  const visit = (value, where) => {
    if (Array.isArray(value)) return value.forEach((v, i) => visit(v, `${where}[${i}]`));
    if (value === null || typeof value !== 'object') return;
    for (const [key, v] of Object.entries(value)) {
      const at = where ? `${where}.${key}` : key;
      // identity.userAssignedIdentities is keyed by the identities' ids.
      if (where.endsWith('userAssignedIdentities')) consider(key, at);
      if (key === 'id' && typeof v === 'string') consider(v, where);
      else visit(v, at);
    }
  };
  const consider = (id, from) => {
    // The scale set's own children (extensions) are not linked resources.
    if (!id.startsWith('/subscriptions/') || (self && id.toLowerCase().startsWith(self))) return;
    const s = scopeOf(id);
    if (!s) return;
    if (!s.known) unknown.push({ id, from });
    else if (!found.has(s.scope.toLowerCase())) found.set(s.scope.toLowerCase(), { scope: s.scope, type: s.type, from });
  };
  visit(model, '');
  return { scopes: [...found.values()], unknown };
}
