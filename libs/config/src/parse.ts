import { z } from 'zod';
import { DEFAULT_TEXT_META, markKind } from './reference.js';
import { describeValue, isSecretField, markSecret } from './secret.js';

/** A configuration problem; `problems` names each bad or missing variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

/**
 * Parses the process environment once, at start, against a schema whose keys are the variable
 * names. Every problem is collected and reported by variable name and problem. A value is never
 * echoed for a field marked {@link env.secret} (or whose name says KEY, SECRET, TOKEN or
 * PASSWORD), and any other echoed value loses URL user-info and query first, so a malformed
 * credential never reaches a terminal or a log collector.
 */
/**
 * A deployment that fills a process's variable from one the operator wrote under another name
 * lists the pairs here (`PROCESS_NAME=OPERATOR_NAME`, comma-separated; compose sets
 * `BACKEND_TELEGRAM_BOT_TOKEN=PLATFORM_BOT_TOKEN` for the backend), so a problem names the
 * variable the operator set, not only the one this process reads.
 */
export const CONFIG_FROM = 'CONFIG_FROM';

/** The `CONFIG_FROM` pairs: process variable -> the operator's variable it was filled from. */
function sourcesOf(value: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of (value ?? '').split(',')) {
    const [mine, theirs] = pair.split('=').map((s) => s.trim());
    if (mine && theirs && /^[A-Z][A-Z0-9_]*$/.test(mine) && /^[A-Z][A-Z0-9_]*$/.test(theirs)) out.set(mine, theirs);
  }
  return out;
}

export function parseConfig<S extends z.ZodObject>(schema: S, source: Record<string, string | undefined> = process.env): z.infer<S> {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = source[key];
    input[key] = value === '' ? undefined : value;
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const from = sourcesOf(source[CONFIG_FROM]);
  const problems = result.error.issues.map((issue) => {
    const key = String(issue.path[0] ?? '');
    const own = issue.path.join('.') || '(config)';
    const name = from.has(key) ? `${from.get(key) ?? key} (this process's ${own})` : own;
    const raw = input[key];
    const secret = isSecretField(key, schema.shape[key]);
    return `${name}: ${issue.message} (${describeValue(raw, secret)})`;
  });
  throw new ConfigError(problems);
}

/** Field builders for environment variables (all arrive as strings). */
export const env = {
  /** A TCP port; 0 asks the OS for a free one (tests). */
  port: (fallback?: number) => {
    const s = markKind(
      z
        .string()
        .regex(/^\d{1,5}$/, 'must be a port number 0-65535')
        .transform(Number)
        .refine((n) => n <= 65535, 'must be a port number 0-65535'),
      'port number 0-65535',
    );
    return fallback === undefined ? s : s.default(fallback);
  },
  /** A positive integer (counts, milliseconds). */
  int: (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
    markKind(
      z
        .string()
        .regex(/^\d+$/, 'must be a whole number')
        .transform(Number)
        .refine((n) => n >= min && n <= max, `must be between ${min} and ${max}`),
      max === Number.MAX_SAFE_INTEGER ? `whole number, at least ${min}` : `whole number ${min}-${max}`,
    ).default(fallback),
  /**
   * A listener's connection cap, optional: unset means `fallback`, lowered to fit the process's
   * open-file limit (connectionCaps). The description is given here because the default is stated in
   * words beside it.
   */
  connectionCap: (fallback: number, description: string) =>
    markKind(
      z
        .string()
        .regex(/^\d+$/, 'must be a whole number')
        .transform(Number)
        .refine((n) => n >= 1 && n <= 1_000_000, 'must be between 1 and 1000000'),
      'whole number 1-1000000',
    )
      .optional()
      .meta({ description, [DEFAULT_TEXT_META]: `\`${fallback}\`, lowered to fit the open-file limit` }),
  /** true/false, 1/0, yes/no. */
  bool: (fallback: boolean) =>
    markKind(
      z
        .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
        .transform((v) => v === 'true' || v === '1' || v === 'yes'),
      '`true` or `false` (also `1`/`0`, `yes`/`no`)',
    ).default(fallback),
  /** An absolute URL of one of `protocols`; a problem never echoes its user-info or query. */
  url: (protocols: readonly string[] = ['http:', 'https:']) =>
    markKind(
      z.string().refine(
        (v) => {
          try {
            return protocols.includes(new URL(v).protocol);
          } catch {
            return false;
          }
        },
        `must be a URL (${protocols.join(', ')})`,
      ),
      `URL (${protocols.join(', ')})`,
    ),
  /**
   * One or more absolute URLs of `protocols`, comma-separated (replicas of one service); parsed
   * into a list with blanks dropped. A problem never echoes a URL's user-info or query.
   */
  urlList: (protocols: readonly string[] = ['http:', 'https:']) =>
    markKind(
      z
        .string()
        .transform((v) =>
          v
            .split(',')
            .map((u) => u.trim())
            .filter((u) => u !== ''),
        )
        .refine(
          (urls) =>
            urls.length > 0 &&
            urls.every((u) => {
              try {
                return protocols.includes(new URL(u).protocol);
              } catch {
                return false;
              }
            }),
          `must be one or more comma-separated URLs (${protocols.join(', ')})`,
        ),
      `one or more comma-separated URLs (${protocols.join(', ')})`,
    ),
  /** A URL that carries credentials (database, SMTP): secret, never echoed at all. */
  secretUrl: (protocols: readonly string[]) => markSecret(env.url(protocols)),
  /** A non-empty string. */
  str: () => markKind(z.string().min(1, 'must not be empty'), 'non-empty string'),
  /** A credential (token, key, password): non-empty, no whitespace or control characters; secret. */
  token: (minLength = 1) =>
    markSecret(
      markKind(
        z
          .string()
          .min(minLength, minLength > 1 ? `must be at least ${minLength} characters` : 'must not be empty')
          .regex(/^[^\s\u0000-\u001f\u007f]+$/, 'must not contain spaces or control characters'),
        `credential: ${minLength > 1 ? `at least ${minLength} characters` : 'non-empty'}, no spaces or control characters`,
      ),
    ),
  /** Marks any field secret: a problem names the variable and the problem, never the value. */
  secret: markSecret,
  logLevel: () =>
    z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        message: 'must be one of fatal, error, warn, info, debug, trace, silent',
      })
      .default('info'),
};
