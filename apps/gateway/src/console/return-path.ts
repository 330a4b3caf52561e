/** Where a console action returns when no (acceptable) destination is given. */
export const DEFAULT_RETURN = '/_gm/ledger';

const PREFIX = '/_gm/';

/**
 * Accepts a return destination only when it is a console path: it must start with `/_gm/`, and
 * anything that could leave the console or be read differently by a browser is refused —
 * absolute URLs, `//host`, backslashes, control characters or spaces, `..` segments, and any
 * percent-encoding of `/`, `\`, `.`, `%` or control characters (so `%2F%2Fhost`, `%5C` and
 * double encoding are refused too). Answers the path unchanged, or null.
 */
export function safeReturnPath(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 2_048) return null;
  if (!raw.startsWith(PREFIX)) return null;
  if (/[\\\s\u0000-\u001f\u007f]/.test(raw)) return null;
  if (/%(2f|5c|2e|25|0[0-9a-f]|1[0-9a-f]|7f)/i.test(raw)) return null;
  if (/%(?![0-9a-f]{2})/i.test(raw)) return null;
  const path = raw.split(/[?#]/, 1)[0] ?? '';
  if (path.includes('//') || path.split('/').some((seg) => seg === '.' || seg === '..')) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw, 'http://console.invalid');
  } catch {
    return null;
  }
  if (parsed.origin !== 'http://console.invalid' || !parsed.pathname.startsWith(PREFIX)) return null;
  return raw;
}
