import { BlockList, isIP } from 'node:net';

/** 127.0.0.0/8 and ::1; BlockList also matches their IPv4-mapped IPv6 forms (::ffff:7f00:1). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Whether a URL's host is this machine: the name `localhost` itself, or a literal loopback
 * address, parsed (not matched as text). `*.localhost` names are refused: outside resolvers
 * that special-case them, they are ordinary DNS names anyone can point anywhere.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  const family = isIP(bare);
  if (family === 4) return LOOPBACK.check(bare, 'ipv4');
  if (family === 6) return LOOPBACK.check(bare, 'ipv6');
  return false;
}
