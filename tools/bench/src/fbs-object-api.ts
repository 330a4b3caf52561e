/**
 * `npm run bench -- fbs` (nx run bench:fbs): is FlatBuffers' object API (`flatc --gen-object-api`:
 * `unpack()` into plain classes, `pack()` back) free next to the accessors our codecs use today?
 * Generates the object API for fbs/wallet.fbs into a scratch folder (nothing is committed),
 * then encodes and decodes the same WalletView both ways, in alternating rounds in one process,
 * and prints CPU per operation of each and their ratio. The codecs are written as the backend's
 * wallet encoder and the gateway's wallet reader are, so the ratio is what switching would cost.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Builder, ByteBuffer } from 'flatbuffers';
import { fb } from '@wordgame/contracts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const ROUNDS = Number(process.env['FBS_ROUNDS'] ?? 5);
const OPS = Number(process.env['FBS_OPS'] ?? 100_000);

/** A wallet as wallet.get answers a Telegram player: three segments, two benefits, a spend order. */
const WALLET = {
  segments: [
    { segment: 'telegram', balance: 1_250n },
    { segment: 'direct', balance: 40n },
    { segment: 'vk', balance: 0n },
  ],
  benefits: [
    { origin: 'telegram', noAdsUntil: 1_767_225_600n, noAdsForever: false, hints: 3n },
    { origin: 'direct', noAdsUntil: 0n, noAdsForever: true, hints: 0n },
  ],
  spendOrder: ['telegram', 'direct'],
  canSpend: true,
  frozen: false,
  trusted: true,
};

/** The accessors, as apps/backend/src/wallet/codec.ts writes a WalletView. */
function encodeAccessors(): Uint8Array {
  const b = new Builder(256);
  const segments = fb.WalletView.createSegmentsVector(
    b,
    WALLET.segments.map((s) => fb.SegmentBalance.createSegmentBalance(b, b.createString(s.segment), s.balance)),
  );
  const benefits = fb.WalletView.createBenefitsVector(
    b,
    WALLET.benefits.map((x) => fb.BenefitBalance.createBenefitBalance(b, b.createString(x.origin), x.noAdsUntil, x.noAdsForever, x.hints)),
  );
  const order = fb.WalletView.createSpendOrderVector(
    b,
    WALLET.spendOrder.map((s) => b.createString(s)),
  );
  b.finish(fb.WalletView.createWalletView(b, segments, benefits, order, WALLET.canSpend, WALLET.frozen, WALLET.trusted));
  return b.asUint8Array();
}

/** The accessors, as apps/gateway/src/api/wallet/codec.ts reads one into its JSON. */
function decodeAccessors(bytes: Uint8Array): unknown {
  const t = fb.WalletView.getRootAsWalletView(new ByteBuffer(bytes));
  const segments = [];
  for (let i = 0; i < t.segmentsLength(); i++) {
    const s = t.segments(i);
    if (s) segments.push({ segment: s.segment() ?? '', balance: s.balance(), in_debt: s.balance() < 0n });
  }
  const benefits = [];
  for (let i = 0; i < t.benefitsLength(); i++) {
    const x = t.benefits(i);
    if (x)
      benefits.push({ origin: x.origin() ?? '', no_ads_until: x.noAdsUntilUnix(), no_ads_forever: x.noAdsForever(), hints: x.hints() });
  }
  const spend: string[] = [];
  for (let i = 0; i < t.spendOrderLength(); i++) spend.push(t.spendOrder(i) ?? '');
  return { segments, benefits, spend_order: spend, can_spend: t.canSpend(), frozen: t.frozen(), trusted: t.trusted() };
}

interface ObjectApi {
  WalletView: { getRootAsWalletView(bb: ByteBuffer): { unpack(): ObjectWallet } };
  WalletViewT: new (...args: unknown[]) => { pack(b: Builder): number };
  SegmentBalanceT: new (segment: string, balance: bigint) => unknown;
  BenefitBalanceT: new (origin: string, until: bigint, forever: boolean, hints: bigint) => unknown;
}
interface ObjectWallet {
  segments: { segment: string | null; balance: bigint }[];
  benefits: { origin: string | null; noAdsUntilUnix: bigint; noAdsForever: boolean; hints: bigint }[];
  spendOrder: string[];
  canSpend: boolean;
  frozen: boolean;
  trusted: boolean;
}

/** flatc's object API for wallet.fbs, generated now into `dir` (imports given the .js NodeNext wants). */
async function objectApi(dir: string): Promise<ObjectApi> {
  execFileSync('flatc', ['--ts', '--gen-object-api', '-o', dir, '-I', join(root, 'fbs'), join(root, 'fbs/wallet.fbs')]);
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.ts') ? [join(d, e.name)] : [],
    );
  for (const file of walk(dir)) writeFileSync(file, readFileSync(file, 'utf8').replace(/(from '\.{1,2}\/[^']*)';/g, "$1.js';"));
  const load = async (name: string) => (await import(pathToFileURL(join(dir, 'backend/fb', `${name}.ts`)).href)) as Record<string, unknown>;
  const view = await load('wallet-view');
  return {
    WalletView: view['WalletView'] as ObjectApi['WalletView'],
    WalletViewT: view['WalletViewT'] as ObjectApi['WalletViewT'],
    SegmentBalanceT: (await load('segment-balance'))['SegmentBalanceT'] as ObjectApi['SegmentBalanceT'],
    BenefitBalanceT: (await load('benefit-balance'))['BenefitBalanceT'] as ObjectApi['BenefitBalanceT'],
  };
}

/** CPU microseconds per call of `op` over OPS calls. */
function cpuPerOp(op: () => unknown): number {
  let sink: unknown;
  const start = process.cpuUsage();
  for (let i = 0; i < OPS; i++) sink = op();
  const used = process.cpuUsage(start);
  if (sink === undefined) throw new Error('no result');
  return (used.user + used.system) / OPS;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

// Inside node_modules/.cache: ignored by git, and the generated files resolve the flatbuffers package.
mkdirSync(join(root, 'node_modules/.cache'), { recursive: true });
const dir = mkdtempSync(join(root, 'node_modules/.cache/fbs-object-api-'));
try {
  const api = await objectApi(dir);
  const encodeObjects = () => {
    const b = new Builder(256);
    const wallet = new api.WalletViewT(
      WALLET.segments.map((s) => new api.SegmentBalanceT(s.segment, s.balance)),
      WALLET.benefits.map((x) => new api.BenefitBalanceT(x.origin, x.noAdsUntil, x.noAdsForever, x.hints)),
      WALLET.spendOrder,
      WALLET.canSpend,
      WALLET.frozen,
      WALLET.trusted,
    );
    b.finish(wallet.pack(b));
    return b.asUint8Array();
  };
  const decodeObjects = (bytes: Uint8Array) => {
    const t = api.WalletView.getRootAsWalletView(new ByteBuffer(bytes)).unpack();
    return {
      segments: t.segments.map((s) => ({ segment: s.segment ?? '', balance: s.balance, in_debt: s.balance < 0n })),
      benefits: t.benefits.map((x) => ({
        origin: x.origin ?? '',
        no_ads_until: x.noAdsUntilUnix,
        no_ads_forever: x.noAdsForever,
        hints: x.hints,
      })),
      spend_order: t.spendOrder,
      can_spend: t.canSpend,
      frozen: t.frozen,
      trusted: t.trusted,
    };
  };
  // Both paths must say the same thing before either is timed.
  const bytes = encodeAccessors();
  if (
    JSON.stringify(decodeAccessors(encodeObjects()), (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)) !==
    JSON.stringify(decodeObjects(bytes), (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))
  ) {
    throw new Error('the object API and the accessors disagree on the same WalletView');
  }
  const rows = {
    encodeAccessors: [] as number[],
    encodeObjects: [] as number[],
    decodeAccessors: [] as number[],
    decodeObjects: [] as number[],
  };
  for (let r = 0; r < ROUNDS; r++) {
    rows.encodeAccessors.push(cpuPerOp(encodeAccessors));
    rows.encodeObjects.push(cpuPerOp(encodeObjects));
    rows.decodeAccessors.push(cpuPerOp(() => decodeAccessors(bytes)));
    rows.decodeObjects.push(cpuPerOp(() => decodeObjects(bytes)));
  }
  const enc = median(rows.encodeObjects) / median(rows.encodeAccessors);
  const dec = median(rows.decodeObjects) / median(rows.decodeAccessors);
  const line = (what: string, a: number[], o: number[], ratio: number) =>
    `${what.padEnd(7)} accessors ${median(a).toFixed(2)} µs, object API ${median(o).toFixed(2)} µs CPU per WalletView: object API ${ratio.toFixed(2)}x`;
  process.stdout.write(
    [
      `FlatBuffers object API vs accessors, ${ROUNDS} alternating rounds of ${OPS} operations (medians), load ${(await import('node:os')).loadavg()[0]?.toFixed(2)}`,
      line('encode', rows.encodeAccessors, rows.encodeObjects, enc),
      line('decode', rows.decodeAccessors, rows.decodeObjects, dec),
      `no cost (both ≤ 1.05x): ${enc <= 1.05 && dec <= 1.05 ? 'yes' : 'no'}`,
      '',
    ].join('\n'),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
