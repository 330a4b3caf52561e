import { z } from 'zod';

/** A bigint as the edge writes it (json.ts): a decimal string, negative for a debt. */
export const bigintString = z
  .string()
  .regex(/^-?[0-9]+$/)
  .describe('an integer written as a string of decimal digits');

/** A timestamp as the edge writes it (fbs-read.ts `isoFromUnix`): ISO 8601 UTC, null when unset. */
export const isoTime = z
  .string()
  .regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/)
  .meta({ format: 'date-time' })
  .nullable();

/**
 * The wire form of a codec's JSON type: every bigint becomes its decimal string. Response schemas
 * are written `satisfies z.ZodType<Wire<CodecJson>>`, so a field the codec writes and the schema
 * lacks (or types differently) fails the typecheck.
 */
export type Wire<T> = T extends bigint
  ? string
  : T extends readonly (infer U)[]
    ? Wire<U>[]
    : T extends object
      ? { [K in keyof T]: Wire<T[K]> }
      : T;
