import {
  create,
  fromBinary,
  ScalarType,
  toBinary,
  type DescMessage,
  type MessageInitShape,
  type MessageShape,
  type UnknownField,
} from '@bufbuild/protobuf';
import { FeatureSet_FieldPresence } from '@bufbuild/protobuf/wkt';

/** The one field of an envelope schema (`bytes <name> = 1;`, proto3 implicit presence), by its property name. */
interface Envelope {
  typeName: string;
  localName: string;
}

const envelopes = new WeakMap<DescMessage, Envelope | null>();

function envelopeOf(schema: DescMessage): Envelope | null {
  let plan = envelopes.get(schema);
  if (plan !== undefined) return plan;
  const field = schema.fields[0];
  plan =
    schema.members.length === 1 &&
    schema.fields.length === 1 &&
    field !== undefined &&
    field.number === 1 &&
    field.fieldKind === 'scalar' &&
    field.scalar === ScalarType.BYTES &&
    field.oneof === undefined &&
    field.presence === FeatureSet_FieldPresence.IMPLICIT
      ? { typeName: schema.typeName, localName: field.localName }
      : null;
  envelopes.set(schema, plan);
  return plan;
}

/**
 * Whether `schema` is an envelope, whose messages this codec writes and reads by hand: exactly one
 * field, `bytes` number 1, singular, not in a oneof, implicit presence (proto3: an empty body is
 * not written). Decided once per schema.
 */
export function isEnvelopeSchema(schema: DescMessage): boolean {
  return envelopeOf(schema) !== null;
}

/**
 * `toBinary(schema, create(schema, message))`: the message's protobuf bytes (for a message of
 * `schema` that is `toBinary(schema, message)`). The gateway's, backend's and bot's messages are
 * envelopes (`bytes body = 1;` holding a FlatBuffers table), written here by hand: protobuf-es's
 * reflection cost 5-8 % of those processes' CPU. Any other schema, and an envelope carrying
 * unknown fields or a body that is not a Uint8Array, is written by protobuf-es. An envelope's
 * bytes may be a view into a shared ArrayBuffer (Node's Buffer pool), as Buffer.allocUnsafe's are.
 */
export function encodeMessage<Desc extends DescMessage>(schema: Desc, message: MessageInitShape<Desc>): Uint8Array {
  const plan = envelopeOf(schema);
  if (plan !== null) {
    const fields = message as Record<string, unknown>;
    const body = fields[plan.localName];
    if (fields.$typeName === plan.typeName) {
      const unknown = fields.$unknown as UnknownField[] | undefined;
      if ((unknown === undefined || unknown.length === 0) && body instanceof Uint8Array) return encodeEnvelope(body);
    } else if (body === undefined || body === null) return new Uint8Array(0);
    else if (body instanceof Uint8Array) return encodeEnvelope(body);
  }
  return toBinary(schema, create(schema, message));
}

/**
 * `fromBinary(schema, bytes)`: the message, or protobuf-es's own error for bytes that are not one.
 * An envelope is read by hand when its bytes are field 1 as length-delimited records (the last
 * one wins) and unknown fields of wire types 0, 1, 2 and 5, which are kept in `$unknown` exactly
 * as protobuf-es keeps them (their one reader here, the bot's check of botlink.Command, is not an
 * envelope). Anything else (groups, a truncated or 5-byte-plus varint, a bad tag, field 1 with
 * another wire type, a cut record) is parsed by protobuf-es, so the answer and any error are its.
 */
export function decodeMessage<Desc extends DescMessage>(schema: Desc, bytes: Uint8Array): MessageShape<Desc> {
  const plan = envelopeOf(schema);
  return (plan !== null ? decodeEnvelope(plan, bytes) : undefined) ?? fromBinary(schema, bytes);
}

/**
 * Tag 0x0a, the varint length, the body; nothing for an empty body. Written into Node's Buffer
 * pool (every byte is overwritten) and returned as a plain Uint8Array view: a fresh ArrayBuffer
 * for each message over V8's 64-byte on-heap limit cost more than all the rest of the encoding.
 */
function encodeEnvelope(body: Uint8Array): Uint8Array {
  const length = body.length;
  if (length === 0) return new Uint8Array(0);
  const head = length < 0x80 ? 2 : length < 0x4000 ? 3 : length < 0x200000 ? 4 : length < 0x10000000 ? 5 : 6;
  const out = Buffer.allocUnsafe(head + length);
  out[0] = 0x0a;
  let pos = 1;
  let rest = length;
  while (rest > 0x7f) {
    out[pos++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  out[pos] = rest;
  out.set(body, head);
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

/** The varint at `pos` if it ends within 4 bytes and before `end`, else -1; `cursor.pos` moves past it. */
function varint(bytes: Uint8Array, cursor: { pos: number }, end: number): number {
  let pos = cursor.pos;
  let result = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    if (pos >= end) return -1;
    const b = bytes[pos++] as number;
    result |= (b & 0x7f) << shift;
    if (b < 0x80) {
      cursor.pos = pos;
      return result;
    }
  }
  return -1;
}

function decodeEnvelope<Desc extends DescMessage>(plan: Envelope, bytes: Uint8Array): MessageShape<Desc> | undefined {
  const end = bytes.length;
  const cursor = { pos: 0 };
  let body: Uint8Array | undefined;
  let unknown: UnknownField[] | undefined;
  while (cursor.pos < end) {
    const tag = varint(bytes, cursor, end);
    if (tag < 0) return undefined;
    const no = tag >>> 3;
    const wireType = tag & 7;
    if (no === 0) return undefined;
    const start = cursor.pos;
    if (no === 1) {
      if (wireType !== 2) return undefined;
      const length = varint(bytes, cursor, end);
      if (length < 0 || cursor.pos + length > end) return undefined;
      body = bytes.subarray(cursor.pos, cursor.pos + length);
      cursor.pos += length;
      continue;
    }
    switch (wireType) {
      case 0:
        for (;;) {
          if (cursor.pos >= end) return undefined;
          if ((bytes[cursor.pos++] as number) < 0x80) break;
        }
        break;
      case 1:
        cursor.pos += 8;
        break;
      case 2: {
        const length = varint(bytes, cursor, end);
        if (length < 0) return undefined;
        cursor.pos += length;
        break;
      }
      case 5:
        cursor.pos += 4;
        break;
      default:
        return undefined;
    }
    if (cursor.pos > end) return undefined;
    (unknown ??= []).push({ no, wireType, data: bytes.subarray(start, cursor.pos) });
  }
  const message: Record<string, unknown> = { $typeName: plan.typeName, [plan.localName]: body ?? new Uint8Array(0) };
  if (unknown !== undefined) message.$unknown = unknown;
  return message as MessageShape<Desc>;
}
