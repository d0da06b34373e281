import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * SSRF guard for callback and webhook URLs: absolute http(s), no credentials, and only public
 * unicast addresses unless the operator allows more. An address is classified by ipaddr.js, which
 * names every special-purpose IPv4 and IPv6 range (IANA's registries): anything but `unicast` is
 * refused, so loopback, private, link-local, CGNAT, documentation, multicast, and the IPv6 ranges
 * that reach IPv4 or old address plans (NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo 2001::/32,
 * IPv4-compatible ::/96, site-local fec0::/10) are all refused. An IPv4-mapped address
 * (::ffff:a.b.c.d) is judged as the IPv4 address it carries.
 * Names are checked here by form only; delivery resolves them again before sending.
 */
function parsed(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (isIP(address) === 0) return null;
  const value = ipaddr.parse(address);
  if (value.kind() === 'ipv6' && (value as ipaddr.IPv6).isIPv4MappedAddress()) return (value as ipaddr.IPv6).toIPv4Address();
  return value;
}

/** IPv4-compatible addresses (::a.b.c.d, deprecated by RFC 4291), which ipaddr.js reads as unicast. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

export function isPrivateAddress(address: string): boolean {
  const value = parsed(address);
  if (value === null) return false;
  if (value.kind() === 'ipv6' && (value as ipaddr.IPv6).match(IPV4_COMPATIBLE as [ipaddr.IPv6, number])) return true;
  return value.range() !== 'unicast';
}

/** 127.0.0.0/8 and ::1 (and IPv4-mapped 127/8): this machine, and nothing else. */
export function isLoopbackAddress(address: string): boolean {
  return parsed(address)?.range() === 'loopback';
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || isLoopbackAddress(host);
}

/**
 * Which non-public addresses a URL may reach: every one when the operator allows private URLs
 * (PURSE_ALLOW_PRIVATE_WEBHOOK_URLS), only loopback for a sandbox merchant when the operator runs
 * in development (PURSE_SANDBOX_LOOPBACK_WEBHOOKS), else none.
 */
export interface AddressPolicy {
  allowPrivate: boolean;
  allowLoopback: boolean;
}

/** The policy of a merchant's URLs under this configuration. */
export function addressPolicy(
  config: { allowPrivateWebhookUrls: boolean; sandboxLoopbackWebhooks: boolean },
  livemode: boolean,
): AddressPolicy {
  return { allowPrivate: config.allowPrivateWebhookUrls, allowLoopback: config.sandboxLoopbackWebhooks && !livemode };
}

/** Whether an address the URL resolved to may be connected to under the policy. */
export function addressAllowed(address: string, policy: AddressPolicy): boolean {
  if (policy.allowPrivate || !isPrivateAddress(address)) return true;
  return policy.allowLoopback && isLoopbackAddress(address);
}

export type UrlProblem = 'raw_characters' | 'not_absolute_http' | 'credentials' | 'private_address';

/** Whitespace or a control character: the URL parser would silently drop or encode them. */
const RAW_CHARACTERS = /[\s\u0000-\u001f\u007f]/;

export function checkCallbackUrl(text: string, policy: AddressPolicy): UrlProblem | null {
  if (RAW_CHARACTERS.test(text)) return 'raw_characters';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not_absolute_http';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'not_absolute_http';
  if (url.username !== '' || url.password !== '') return 'credentials';
  if (policy.allowPrivate) return null;
  // "localhost." is localhost: a fully qualified name's trailing dot is dropped before checking.
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (policy.allowLoopback && isLoopbackHost(host)) return null;
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal'))
    return 'private_address';
  return isPrivateAddress(host) ? 'private_address' : null;
}

export const URL_PROBLEM_MESSAGES: Record<UrlProblem, string> = {
  raw_characters: 'must not contain spaces or control characters (percent-encode them)',
  not_absolute_http: 'must be an absolute http or https URL',
  credentials: 'must not contain a user name or password',
  private_address:
    'must not point to a loopback, private or link-local address (for local development, a sandbox merchant may use a loopback URL such as http://127.0.0.1:3000/hooks when the server runs with PURSE_SANDBOX_LOOPBACK_WEBHOOKS=true, the default on the embedded database)',
};
