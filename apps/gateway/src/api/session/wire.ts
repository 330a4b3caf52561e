import { z } from 'zod';
import { PLATFORM_KINDS, PLATFORM_SUBTYPES } from '../../http/index.js';
import { bigintString, isoTime, type Wire } from '../wire.js';

/** The platform recorded on a session (null when none: a view-only session). */
export const platformWire = z.object({ kind: z.enum(PLATFORM_KINDS).nullable(), subtype: z.enum(PLATFORM_SUBTYPES).nullable() }).strict();

/** What a session endpoint answers: the bearer token for every other call. */
export const sessionGrantWire = z
  .object({ token: z.string(), expires_at: isoTime, platform: platformWire, account_id: bigintString, account_created: z.boolean() })
  .strict()
  .meta({ title: 'SessionGrant' }) satisfies z.ZodType<Wire<SessionGrantJson>>;

/** The JSON a session endpoint answers: the bearer token and the platform recorded on the session. */
export interface SessionGrantJson {
  token: string;
  expires_at: string | null;
  platform: { kind: string | null; subtype: string | null };
  account_id: bigint;
  account_created: boolean;
}
