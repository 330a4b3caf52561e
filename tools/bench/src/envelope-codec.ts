/**
 * `npx tsx tools/bench/src/envelope-codec.ts`: what libs/h2-unary's hand-written envelope codec
 * saves next to protobuf-es's reflection (toBinary/fromBinary) on one Check request with a
 * 200-byte body, the size of a typical FlatBuffers table. Encode, decode and both, each codec in
 * alternating rounds in one process; prints CPU ns per operation (medians) and the ratio.
 */
import { loadavg } from 'node:os';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { backendApi } from '@wordgame/contracts';
import { decodeMessage, encodeMessage } from '@wordgame/h2-unary';

const ROUNDS = Number(process.env['ENVELOPE_ROUNDS'] ?? 7);
const OPS = Number(process.env['ENVELOPE_OPS'] ?? 200_000);
const schema = backendApi.CheckRequestSchema;
const message = create(schema, { body: new Uint8Array(200).map((_, i) => (i * 31) & 0xff) });
const bytes = toBinary(schema, message);

interface Codec {
  encode: () => Uint8Array;
  decode: () => { body: Uint8Array };
}

const codecs: Record<'protobuf-es' | 'hand', Codec> = {
  'protobuf-es': { encode: () => toBinary(schema, message), decode: () => fromBinary(schema, bytes) },
  hand: { encode: () => encodeMessage(schema, message), decode: () => decodeMessage(schema, bytes) },
};

type Op = 'encode' | 'decode' | 'encode+decode';
const ops: Record<Op, (c: Codec) => number> = {
  encode: (c) => c.encode().length,
  decode: (c) => c.decode().body.length,
  'encode+decode': (c) => c.encode().length + c.decode().body.length,
};

let sink = 0;

/** CPU nanoseconds per call of `op` over OPS calls. */
function time(op: (c: Codec) => number, codec: Codec): number {
  const start = process.cpuUsage();
  for (let i = 0; i < OPS; i++) sink += op(codec);
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / OPS;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const hand = encodeMessage(schema, message);
if (hand.length !== bytes.length || hand.some((b, i) => b !== bytes[i])) throw new Error('the codecs write different bytes');
for (const op of Object.values(ops)) for (const c of Object.values(codecs)) time(op, c);

const samples = new Map<string, number[]>();
for (let r = 0; r < ROUNDS; r++) {
  for (const [opName, op] of Object.entries(ops)) {
    const order = r % 2 === 0 ? (['protobuf-es', 'hand'] as const) : (['hand', 'protobuf-es'] as const);
    for (const name of order) {
      const key = `${opName} ${name}`;
      samples.set(key, [...(samples.get(key) ?? []), time(op, codecs[name])]);
    }
  }
}

console.log(
  `envelope codec, ${bytes.length}-byte message, ${ROUNDS} alternating rounds of ${OPS} ops (CPU medians), load ${loadavg()[0]?.toFixed(2)}`,
);
for (const opName of Object.keys(ops)) {
  const reference = median(samples.get(`${opName} protobuf-es`) ?? []);
  const ours = median(samples.get(`${opName} hand`) ?? []);
  console.log(
    `${opName.padEnd(14)} protobuf-es ${reference.toFixed(0).padStart(6)} ns/op   hand ${ours.toFixed(0).padStart(6)} ns/op   ratio ${(reference / ours).toFixed(1)}x`,
  );
}
if (sink === 0) console.log('');
