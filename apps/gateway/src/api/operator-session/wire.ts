import { z } from 'zod';
import { isoTime } from '../wire.js';

/** An operator session: the bearer token of every other /_gm/api call, its end and the operator's roles. */
export const operatorGrantWire = z
  .object({ token: z.string(), expires_at: isoTime, login: z.string(), roles: z.array(z.string()) })
  .strict()
  .meta({ title: 'OperatorGrant' });
