import type { Builder } from 'flatbuffers';

/** Unix seconds of a date as an int64. */
export function unixSeconds(d: Date | null): bigint {
  return d === null ? 0n : BigInt(Math.floor(d.getTime() / 1000));
}

/** A vector of strings built with `create` (a generated `create…Vector`). */
export function stringVector(b: Builder, values: readonly string[], create: (b: Builder, data: number[]) => number): number {
  return create(
    b,
    values.map((v) => b.createString(v)),
  );
}
