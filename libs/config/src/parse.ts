import { z } from 'zod';

/** A configuration problem; `problems` names each bad or missing variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

/**
 * Parses the process environment once, at start, against a schema whose keys are the variable
 * names. Every problem is collected and reported by variable name; values are never echoed for
 * variables whose name suggests a secret.
 */
export function parseConfig<S extends z.ZodObject>(
  schema: S,
  source: Record<string, string | undefined> = process.env,
): z.infer<S> {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = source[key];
    input[key] = value === '' ? undefined : value;
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || '(config)';
    const raw = input[String(issue.path[0])];
    const shown = raw === undefined ? 'missing' : SECRET.test(name) ? 'got <redacted>' : `got ${JSON.stringify(raw)}`;
    return `${name}: ${issue.message} (${shown})`;
  });
  throw new ConfigError(problems);
}

const SECRET = /KEY|SECRET|TOKEN|PASSWORD/i;

/** Field builders for environment variables (all arrive as strings). */
export const env = {
  /** A TCP port; 0 asks the OS for a free one (tests). */
  port: (fallback?: number) => {
    const s = z
      .string()
      .regex(/^\d{1,5}$/, 'must be a port number 0-65535')
      .transform(Number)
      .refine((n) => n <= 65535, 'must be a port number 0-65535');
    return fallback === undefined ? s : s.default(fallback);
  },
  /** A positive integer (counts, milliseconds). */
  int: (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
    z
      .string()
      .regex(/^\d+$/, 'must be a whole number')
      .transform(Number)
      .refine((n) => n >= min && n <= max, `must be between ${min} and ${max}`)
      .default(fallback),
  /** true/false, 1/0, yes/no. */
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
      .transform((v) => v === 'true' || v === '1' || v === 'yes')
      .default(fallback),
  /** An absolute http(s) or postgres URL. */
  url: (protocols: readonly string[] = ['http:', 'https:']) =>
    z.string().refine((v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    }, `must be a URL (${protocols.join(', ')})`),
  /** A non-empty string. */
  str: () => z.string().min(1, 'must not be empty'),
  logLevel: () =>
    z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        message: 'must be one of fatal, error, warn, info, debug, trace, silent',
      })
      .default('info'),
};
