import fc from 'fast-check';
import { decodeTable, encodeTable, FlatBufferDecodeError } from './envelope.js';
import { CheckResponse } from './fbs.js';

const read = (bytes: Uint8Array) =>
  decodeTable(
    bytes,
    (bb) => CheckResponse.getRootAsCheckResponse(bb),
    (t) => ({ status: t.status(), uptime: t.uptimeSeconds(), latency: t.databaseLatencyUs() }),
  );

describe('FlatBuffers envelope', () => {
  it('round-trips a table, int64 as bigint beyond 2^53', () => {
    const bytes = encodeTable((b) => {
      const status = b.createString('ok');
      CheckResponse.startCheckResponse(b);
      CheckResponse.addStatus(b, status);
      CheckResponse.addUptimeSeconds(b, 2n ** 60n + 1n);
      return CheckResponse.endCheckResponse(b);
    });
    expect(read(bytes)).toEqual({ status: 'ok', uptime: 2n ** 60n + 1n, latency: -1n });
  });

  it('refuses short and out-of-range bodies with FlatBufferDecodeError', () => {
    expect(() => read(new Uint8Array([1, 2, 3]))).toThrow(FlatBufferDecodeError);
    expect(() => read(new Uint8Array([255, 255, 255, 127, 0, 0, 0, 0]))).toThrow(FlatBufferDecodeError);
  });

  it('never throws anything but FlatBufferDecodeError on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          read(bytes);
        } catch (err: unknown) {
          expect(err).toBeInstanceOf(FlatBufferDecodeError);
        }
      }),
      { numRuns: 2_000 },
    );
  });
});
