import { Builder, ByteBuffer } from 'flatbuffers';

/** Raised when bytes are not a readable FlatBuffers table of the expected type. */
export class FlatBufferDecodeError extends Error {
  override readonly name = 'FlatBufferDecodeError';
}

/**
 * Builds one FlatBuffers table and returns its finished bytes, ready for a Connect envelope's
 * `body`. `build` writes the table with the builder and returns its offset.
 */
export function encodeTable(build: (builder: Builder) => number, initialSize = 256): Uint8Array {
  const builder = new Builder(initialSize);
  builder.finish(build(builder));
  return builder.asUint8Array();
}

/**
 * Reads a root table from an envelope body, then `read` turns it into a plain value. FlatBuffers'
 * TypeScript runtime has no verifier, so any out-of-bounds read on hostile or truncated bytes is
 * caught here and surfaces as a FlatBufferDecodeError instead of an arbitrary RangeError.
 */
export function decodeTable<T, R>(bytes: Uint8Array, getRoot: (bb: ByteBuffer) => T, read: (table: T) => R): R {
  if (bytes.length < 8) throw new FlatBufferDecodeError(`body too short for a table: ${bytes.length} bytes`);
  try {
    const bb = new ByteBuffer(bytes);
    const rootOffset = bb.readInt32(0);
    if (rootOffset < 4 || rootOffset >= bytes.length) throw new FlatBufferDecodeError('root offset out of range');
    return read(getRoot(bb));
  } catch (err: unknown) {
    if (err instanceof FlatBufferDecodeError) throw err;
    throw new FlatBufferDecodeError(`malformed table: ${err instanceof Error ? err.message : String(err)}`);
  }
}
