import type { encodeTable } from '@wordgame/contracts';

/** The FlatBuffers builder `encodeTable` hands to its callback. */
export type Builder = Parameters<Parameters<typeof encodeTable>[0]>[0];

/** Reads a vector of strings through its accessor pair. */
export function readStrings(length: number, at: (index: number) => string | null): string[] {
  const out: string[] = [];
  for (let i = 0; i < length; i++) out.push(at(i) ?? '');
  return out;
}

/** Unix seconds to an ISO timestamp; 0 (unset) is null. */
export function isoFromUnix(seconds: bigint): string | null {
  return seconds === 0n ? null : new Date(Number(seconds) * 1000).toISOString();
}
