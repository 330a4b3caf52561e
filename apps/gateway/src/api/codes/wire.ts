import { z } from 'zod';
import { bigintString } from '../wire.js';

/** What a redemption granted (POST /api/v1/user/codes/redeem). */
export const redeemedWire = z
  .object({
    segment: z
      .enum(['direct', 'telegram', 'vk'])
      .describe('the wallet segment (and benefit origin) the grant went to: the context it was redeemed in'),
    chips: bigintString,
    hints: bigintString,
    no_ads_days: bigintString,
    balance: bigintString.describe("the segment's chips after the grant"),
  })
  .strict()
  .meta({ title: 'CodeRedeemed' });

export type RedeemedJson = z.infer<typeof redeemedWire>;
