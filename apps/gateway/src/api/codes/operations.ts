import { decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { z } from 'zod';
import type { BackendClients } from '../../backend/index.js';
import type { Operation } from '../operation.js';
import { jsonBody, parseInput } from '../validation.js';
import { redeemedWire, type RedeemedJson } from './wire.js';

/** Longest code text the edge passes on (a code is at most 32 characters plus spaces and dashes). */
const CODE_TEXT_MAX = 64;

const redeemBody = z.object({ code: z.string().max(CODE_TEXT_MAX) }).strict();

/** Reads a CodeRedeemed body. */
export function readRedeemed(body: Uint8Array): RedeemedJson {
  return decodeTable(
    body,
    (bb) => fb.CodeRedeemed.getRootAsCodeRedeemed(bb),
    (t) =>
      redeemedWire.parse({
        segment: t.segment() ?? '',
        chips: t.chips().toString(),
        hints: t.hints().toString(),
        no_ads_days: t.noAdsDays().toString(),
        balance: t.balance().toString(),
      }),
  );
}

/**
 * `codes.redeem`: a trusted session redeems a promo code in its own context (an untrusted one is
 * refused here with 403 `untrusted_session`, and by the backend as well).
 */
export function codeOperations(backend: BackendClients): Operation[] {
  return [
    {
      name: 'codes.redeem',
      method: 'post',
      path: '/api/v1/user/codes/redeem',
      auth: 'trusted_session',
      doc: {
        tag: 'wallet',
        summary: 'Redeem a promo code',
        description:
          "Grants what the code grants (chips, hints, no-ads days) to the segment of the caller's context (web = direct, telegram, vk), once per player. Case, spaces and dashes do not matter. A code that is unknown, used up, outside its validity window or not for this host answers the same `code_not_redeemable`; `code_already_redeemed` is the caller's own repeat. Attempts are limited per account and per client address (`rate_limited` with Retry-After), refused ones included. Not in the vk iOS context (`purchase_forbidden`).",
        body: redeemBody,
        examples: { redeem: { code: 'K7QM-2XRP-9WDF-H4TN' } },
        success: { status: 200, description: 'What the code granted.', body: redeemedWire },
        errors: ['code_not_redeemable', 'code_already_redeemed', 'rate_limited', 'purchase_forbidden', 'account_suspended'],
      },
      async handle({ req, call }) {
        const input = parseInput(redeemBody, jsonBody(req));
        const body = encodeTable((b) => fb.CodeRedeem.createCodeRedeem(b, b.createString(input.code)));
        return { status: 200, body: readRedeemed((await backend.promos.redeemCode({ body }, call)).body) };
      },
    },
  ];
}
