import { z } from 'zod';
import { bigintString } from '../wire.js';

/** A friendship between the caller and `account_id`. */
export const friendshipWire = z
  .object({ account_id: bigintString, status: z.enum(['pending_outgoing', 'pending_incoming', 'friends']) })
  .strict()
  .meta({ title: 'Friendship' });

/** Whether the caller blocks `account_id`. */
export const blockWire = z.object({ account_id: bigintString, blocked: z.boolean() }).strict().meta({ title: 'Block' });
