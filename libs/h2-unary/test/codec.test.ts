import { create, createFileRegistry, fromBinary, toBinary, type DescMessage } from '@bufbuild/protobuf';
import {
  BytesValueSchema,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
  StringValueSchema,
} from '@bufbuild/protobuf/wkt';
import { backendApi, botlink } from '@wordgame/contracts';
import fc from 'fast-check';
import { decodeMessage, encodeMessage, isEnvelopeSchema } from '../src/codec.js';

/**
 * The hand-written envelope codec's contract: the bytes protobuf-es's toBinary writes, and what
 * its fromBinary answers (the same message, or an error of the same class and message) for any
 * bytes; schemas that are not envelopes go to protobuf-es.
 */
const envelope = backendApi.CheckRequestSchema;

/** How parsing `bytes` ended: the message, or the error's class and message. */
function outcome(parse: () => unknown): { ok: true; message: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, message: parse() };
  } catch (err: unknown) {
    return { ok: false, error: err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err) };
  }
}

function expectSameDecode(schema: DescMessage, bytes: Uint8Array): void {
  expect(outcome(() => decodeMessage(schema, bytes))).toStrictEqual(outcome(() => fromBinary(schema, bytes)));
}

function varint(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    out.push(rest % 0x80 | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return out;
}

const tag = (no: number, wireType: number) => varint(no * 8 + wireType);

/** One record of a message's bytes: field 1, an unknown field of any wire type, a group, or noise. */
const record: fc.Arbitrary<number[]> = fc.oneof(
  fc.uint8Array({ maxLength: 40 }).map((body) => [...tag(1, 2), ...varint(body.length), ...body]),
  fc
    .tuple(fc.integer({ min: 2, max: 2 ** 29 - 1 }), fc.constantFrom(0, 1, 2, 5), fc.uint8Array({ maxLength: 20 }), fc.nat())
    .map(([no, wireType, data, n]) => {
      if (wireType === 0) return [...tag(no, 0), ...varint(n)];
      if (wireType === 1) return [...tag(no, 1), ...[...data, 0, 0, 0, 0, 0, 0, 0, 0].slice(0, 8)];
      if (wireType === 5) return [...tag(no, 5), ...[...data, 0, 0, 0, 0].slice(0, 4)];
      return [...tag(no, 2), ...varint(data.length), ...data];
    }),
  fc
    .tuple(fc.integer({ min: 1, max: 40 }), fc.boolean())
    .map(([no, matched]) => [...tag(no, 3), ...tag(2, 0), 1, ...tag(matched ? no : no + 1, 4)]),
  fc
    .tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 7 }), fc.uint8Array({ maxLength: 6 }))
    .map(([no, wt, data]) => [...tag(no, wt), ...data]),
  fc.constantFrom<number[]>(
    [0x8a, 0x00, 0x01, 0x41],
    [0x0a, 0x81, 0x80, 0x80, 0x80, 0x00, 0x41],
    [0x08, 0x01],
    [0x80, 0x80, 0x80, 0x80, 0x10],
    [0x0a],
  ),
);

/** A message's bytes made of records, then maybe cut short or with one byte changed. */
const mutated: fc.Arbitrary<Uint8Array> = fc
  .tuple(fc.array(record, { maxLength: 6 }), fc.oneof(fc.constant('keep'), fc.constant('cut'), fc.constant('flip')), fc.nat(), fc.nat(255))
  .map(([records, how, at, byte]) => {
    const bytes = records.flat();
    if (how === 'cut' && bytes.length > 0) return new Uint8Array(bytes.slice(0, at % bytes.length));
    if (how === 'flip' && bytes.length > 0) bytes[at % bytes.length] = byte;
    return new Uint8Array(bytes);
  });

describe('envelope codec', () => {
  it('writes the bytes toBinary writes, for any body (empty and large included)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ minLength: 16_000, maxLength: 17_000 })), (body) => {
        const message = create(envelope, { body });
        const expected = toBinary(envelope, message);
        expect(encodeMessage(envelope, message)).toStrictEqual(expected);
        expect(encodeMessage(envelope, { body })).toStrictEqual(expected);
      }),
      { numRuns: 300 },
    );
    for (const size of [0, 1, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152]) {
      const body = new Uint8Array(size).fill(7);
      expect(encodeMessage(envelope, { body })).toStrictEqual(toBinary(envelope, create(envelope, { body })));
    }
    expect(encodeMessage(envelope, {})).toStrictEqual(toBinary(envelope, create(envelope)));
  });

  it('gives each message its own bytes, though they may share an ArrayBuffer', () => {
    const a = encodeMessage(envelope, { body: new Uint8Array(200).fill(1) });
    const b = encodeMessage(envelope, { body: new Uint8Array(200).fill(2) });
    a.fill(9);
    expect(b).toStrictEqual(toBinary(envelope, create(envelope, { body: new Uint8Array(200).fill(2) })));
    expect(a.byteLength).toBe(203);
  });

  it('writes unknown fields back as toBinary does', () => {
    const message = fromBinary(envelope, new Uint8Array([0x0a, 1, 0x41, 0x10, 0x05, 0x1a, 0x01, 0x42]));
    expect(message.$unknown).toHaveLength(2);
    expect(encodeMessage(envelope, message)).toStrictEqual(toBinary(envelope, message));
  });

  it('reads random bytes as fromBinary does: the same message or the same error', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => expectSameDecode(envelope, bytes)),
      { numRuns: 2_000 },
    );
  });

  it('reads mutated encodings (unknown fields, groups, repeated field 1, cuts, changed bytes) as fromBinary does', () => {
    fc.assert(
      fc.property(mutated, (bytes) => expectSameDecode(envelope, bytes)),
      { numRuns: 3_000 },
    );
  });

  it('reads what it writes, last field 1 winning, unknown fields kept in $unknown', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (body) => {
        expect(decodeMessage(envelope, encodeMessage(envelope, { body }))).toStrictEqual(create(envelope, { body }));
      }),
    );
    const bytes = new Uint8Array([0x0a, 1, 0x41, 0x10, 0x05, 0x0a, 2, 0x42, 0x43, 0x1d, 1, 2, 3, 4]);
    const message = decodeMessage(envelope, bytes);
    expect(message).toStrictEqual(fromBinary(envelope, bytes));
    expect(message.body).toStrictEqual(new Uint8Array([0x42, 0x43]));
    expect(message.$unknown?.map((f) => [f.no, f.wireType])).toStrictEqual([
      [2, 0],
      [3, 5],
    ]);
  });

  it('takes the envelope path for one singular proto3 `bytes` field number 1, whatever its name', () => {
    expect(isEnvelopeSchema(envelope)).toBe(true);
    expect(isEnvelopeSchema(backendApi.CheckResponseSchema)).toBe(true);
    expect(isEnvelopeSchema(BytesValueSchema)).toBe(true);
    const bytes = new Uint8Array([0x0a, 2, 0x41, 0x42, 0x10, 0x01]);
    expect(decodeMessage(BytesValueSchema, bytes)).toStrictEqual(fromBinary(BytesValueSchema, bytes));
    expect(encodeMessage(BytesValueSchema, { value: bytes })).toStrictEqual(
      toBinary(BytesValueSchema, create(BytesValueSchema, { value: bytes })),
    );
  });

  describe('other schemas go to protobuf-es', () => {
    const { OPTIONAL: LABEL_OPTIONAL, REPEATED: LABEL_REPEATED } = FieldDescriptorProto_Label;
    const { BYTES: TYPE_BYTES, STRING: TYPE_STRING } = FieldDescriptorProto_Type;
    const registry = createFileRegistry(
      create(FileDescriptorProtoSchema, {
        name: 'codec_test.proto',
        package: 'codec.test',
        syntax: 'proto3',
        messageType: [
          { name: 'Second', field: [{ name: 'body', number: 2, label: LABEL_OPTIONAL, type: TYPE_BYTES }] },
          { name: 'Repeated', field: [{ name: 'body', number: 1, label: LABEL_REPEATED, type: TYPE_BYTES }] },
          {
            name: 'Optional',
            field: [{ name: 'body', number: 1, label: LABEL_OPTIONAL, type: TYPE_BYTES, proto3Optional: true, oneofIndex: 0 }],
            oneofDecl: [{ name: '_body' }],
          },
          {
            name: 'InOneof',
            field: [{ name: 'body', number: 1, label: LABEL_OPTIONAL, type: TYPE_BYTES, oneofIndex: 0 }],
            oneofDecl: [{ name: 'kind' }],
          },
          {
            name: 'Two',
            field: [
              { name: 'body', number: 1, label: LABEL_OPTIONAL, type: TYPE_BYTES },
              { name: 'note', number: 2, label: LABEL_OPTIONAL, type: TYPE_STRING },
            ],
          },
        ],
      }),
      () => undefined,
    );
    const schemas: [string, DescMessage][] = [
      ...['Second', 'Repeated', 'Optional', 'InOneof', 'Two'].map((name): [string, DescMessage] => {
        const schema = registry.getMessage(`codec.test.${name}`);
        if (!schema) throw new Error(`no ${name}`);
        return [name, schema];
      }),
      ['StringValue', StringValueSchema],
      ['botlink.Command', botlink.CommandSchema],
    ];

    it.each(schemas)('%s is not an envelope, and reads and writes as protobuf-es does', (_name, schema) => {
      expect(isEnvelopeSchema(schema)).toBe(false);
      fc.assert(
        fc.property(fc.oneof(fc.uint8Array({ maxLength: 32 }), mutated), (bytes) => {
          expectSameDecode(schema, bytes);
          const read = outcome(() => fromBinary(schema, bytes));
          if (read.ok) {
            const message = read.message as ReturnType<typeof fromBinary<DescMessage>>;
            expect(encodeMessage(schema, message)).toStrictEqual(toBinary(schema, message));
          }
        }),
        { numRuns: 300 },
      );
    });
  });
});
