/** The console session cookie (HttpOnly, SameSite=Strict, Path=/_gm). */
export const SESSION_COOKIE = 'gm_session';
/** The pre-session cookie that backs the sign-in form's CSRF token. */
export const LOGIN_COOKIE = 'gm_login';

/** Reads one cookie from a Cookie header; undefined when absent or malformed. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{1,128}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

/** A Set-Cookie value for a console cookie; maxAgeSeconds 0 deletes it. */
export function cookieHeader(name: string, value: string, options: { secure: boolean; maxAgeSeconds?: number }): string {
  const parts = [`${name}=${value}`, 'Path=/_gm', 'HttpOnly', 'SameSite=Strict'];
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}
