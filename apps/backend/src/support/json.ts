/**
 * A JSON value as a data export holds it: integers of money and counters are decimal strings (a
 * bigint never becomes a float), times are ISO 8601 strings.
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A timestamp as an export writes it (ISO 8601, UTC), null kept. */
export function isoOrNull(at: Date | null): string | null {
  return at === null ? null : at.toISOString();
}
