import { BlockList, isIP } from 'node:net';

/**
 * SSRF guard for callback and webhook URLs: absolute http(s), no credentials, and no
 * loopback, private, link-local, CGNAT or unique-local address unless the operator allows it.
 * Names are checked here by form only; delivery resolves them again before sending.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  // No ::ffff:0:0/96 entry: BlockList already checks IPv4-mapped addresses against the IPv4
  // rules, and that entry would match every IPv4 address.
  blocked.addSubnet(net, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export type UrlProblem = 'not_absolute_http' | 'credentials' | 'private_address';

export function checkCallbackUrl(text: string, allowPrivate: boolean): UrlProblem | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not_absolute_http';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'not_absolute_http';
  if (url.username !== '' || url.password !== '') return 'credentials';
  if (allowPrivate) return null;
  // "localhost." is localhost: a fully qualified name's trailing dot is dropped before checking.
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal'))
    return 'private_address';
  return isPrivateAddress(host) ? 'private_address' : null;
}

export const URL_PROBLEM_MESSAGES: Record<UrlProblem, string> = {
  not_absolute_http: 'must be an absolute http or https URL',
  credentials: 'must not contain a user name or password',
  private_address: 'must not point to a loopback, private or link-local address',
};
