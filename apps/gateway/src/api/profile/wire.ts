import { z } from 'zod';
import { platformWire } from '../session/wire.js';
import { bigintString, type Wire } from '../wire.js';

/** The caller's profile. */
export const profileWire = z
  .object({
    account_id: bigintString,
    display_name: z.string(),
    email: z.string().nullable(),
    email_confirmed: z.boolean(),
    pending_email: z.string().nullable(),
    platform: platformWire,
    sign_in_providers: z.array(z.string()),
    linked_platforms: z.array(z.string()),
  })
  .strict()
  .meta({ title: 'Profile' }) satisfies z.ZodType<Wire<ProfileJson>>;

/** The profile as JSON. Inside a mini-app host `sign_in_providers` is only `email` (the backend's gate). */
export interface ProfileJson {
  account_id: bigint;
  display_name: string;
  email: string | null;
  email_confirmed: boolean;
  pending_email: string | null;
  platform: { kind: string | null; subtype: string | null };
  sign_in_providers: string[];
  linked_platforms: string[];
}
