/**
 * The service's cookies (the hosted pay page's and the dashboard session's), read and written in
 * one place. Values are ours (base64url), so no encoding is needed; anything else is ignored.
 */

export interface CookieOptions {
  path: string;
  sameSite: 'Strict' | 'Lax';
  /** Only over HTTPS (request.protocol, which honours PURSE_TRUSTED_PROXIES). */
  secure: boolean;
  /** 0: delete the cookie now. Absent: a browser-session cookie. */
  maxAgeS?: number;
}

/** The value of cookie `name` in a Cookie header, when it has the expected shape. */
export function readCookie(header: string | undefined, name: string, shape: RegExp): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    if (shape.test(value)) return value;
  }
  return undefined;
}

/** A Set-Cookie value: always HttpOnly. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${value}`, `Path=${options.path}`, 'HttpOnly', `SameSite=${options.sameSite}`];
  if (options.maxAgeS !== undefined) parts.push(`Max-Age=${options.maxAgeS}`);
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}
