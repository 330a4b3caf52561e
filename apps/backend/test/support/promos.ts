import type { Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';

/** A code as a test asks for it; unset fields take a plain chips code open now for every host. */
export interface CodeSpec {
  code?: string;
  label?: string;
  chips?: bigint;
  hints?: bigint;
  noAdsDays?: bigint;
  max?: number;
  from?: Date;
  until?: Date;
  hosts?: string[];
}

export type PromoClient = Client<typeof backendApi.PromoService>;

/** The CodeCreate body of a spec. */
export function codeBody(s: CodeSpec): Uint8Array {
  const from = s.from ?? new Date(Date.now() - 60_000);
  const until = s.until ?? new Date(Date.now() + 86_400_000);
  return encodeTable((b) =>
    fb.CodeCreate.createCodeCreate(
      b,
      b.createString(s.code ?? ''),
      b.createString(s.label ?? 'test'),
      s.chips ?? 100n,
      s.hints ?? 0n,
      s.noAdsDays ?? 0n,
      s.max ?? 100,
      BigInt(Math.floor(from.getTime() / 1000)),
      BigInt(Math.floor(until.getTime() / 1000)),
      fb.CodeCreate.createHostsVector(
        b,
        (s.hosts ?? ['web', 'telegram', 'vk']).map((h) => b.createString(h)),
      ),
    ),
  );
}

/** Creates a code through the service (the client names an operator); answers its id and full code. */
export async function createCode(promos: PromoClient, s: CodeSpec, options?: { headers: Record<string, string> }) {
  const res = await promos.createCode({ body: codeBody(s) }, options);
  return decodeTable(
    res.body,
    (bb) => fb.CodeCreated.getRootAsCodeCreated(bb),
    (t) => ({ id: t.id(), code: t.code() ?? '', prefix: t.prefix() ?? '' }),
  );
}

/** Redeems `code` as the caller in `headers`; answers what was granted. */
export async function redeem(promos: PromoClient, code: string, headers: { headers: Record<string, string> }) {
  const res = await promos.redeemCode({ body: encodeTable((b) => fb.CodeRedeem.createCodeRedeem(b, b.createString(code))) }, headers);
  return decodeTable(
    res.body,
    (bb) => fb.CodeRedeemed.getRootAsCodeRedeemed(bb),
    (t) => ({ segment: t.segment() ?? '', chips: t.chips(), hints: t.hints(), noAdsDays: t.noAdsDays(), balance: t.balance() }),
  );
}

/** Reverses a redemption (the client names an operator with the refunder role). */
export async function reverse(promos: PromoClient, redemptionId: bigint, reason = 'abuse') {
  const res = await promos.reverseRedemption({
    body: encodeTable((b) => fb.RedemptionReverse.createRedemptionReverse(b, redemptionId, b.createString(reason))),
  });
  return decodeTable(
    res.body,
    (bb) => fb.RedemptionReversed.getRootAsRedemptionReversed(bb),
    (t) => ({ balance: t.balance(), debts: Array.from({ length: t.debtsLength() }, (_, i) => t.debts(i)) }),
  );
}

/** A code's redemptions as GetCode lists them, and its usage. */
export async function codeDetail(promos: PromoClient, id: bigint) {
  const res = await promos.getCode({ body: encodeTable((b) => fb.CodeLookup.createCodeLookup(b, id)) });
  return decodeTable(
    res.body,
    (bb) => fb.CodeDetail.getRootAsCodeDetail(bb),
    (t) => ({
      redeemed: t.code()?.redeemed() ?? -1,
      reversed: t.code()?.reversed() ?? -1,
      redemptions: Array.from({ length: t.redemptionsLength() }, (_, i) => {
        const r = t.redemptions(i);
        return { id: r?.id() ?? 0n, accountId: r?.accountId() ?? 0n, segment: r?.segment() ?? '', reversedUnix: r?.reversedUnix() ?? 0n };
      }),
    }),
  );
}

/** The code list and the per-day figures as ListCodes answers them (30 days). */
export async function listCodes(promos: PromoClient, options?: { headers: Record<string, string> }) {
  const res = await promos.listCodes({ body: encodeTable((b) => fb.CodeListQuery.createCodeListQuery(b, 0)) }, options);
  return decodeTable(
    res.body,
    (bb) => fb.CodeList.getRootAsCodeList(bb),
    (t) => ({
      codes: Array.from({ length: t.codesLength() }, (_, i) => {
        const c = t.codes(i);
        return {
          id: c?.id() ?? 0n,
          prefix: c?.prefix() ?? '',
          redeemed: c?.redeemed() ?? -1,
          reversed: c?.reversed() ?? -1,
          maxRedemptions: c?.maxRedemptions() ?? -1,
          hosts: Array.from({ length: c?.hostsLength() ?? 0 }, (_, j) => c?.hosts(j) ?? ''),
          createdBy: c?.createdByLogin() ?? '',
        };
      }),
      days: Array.from({ length: t.daysLength() }, (_, i) => {
        const d = t.days(i);
        return { day: d?.day() ?? '', redemptions: d?.redemptions() ?? 0n, reversals: d?.reversals() ?? 0n, chips: d?.chips() ?? 0n };
      }),
    }),
  );
}
