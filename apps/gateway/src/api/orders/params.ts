import { z } from 'zod';

/** An order id: a uuid in any letter case, normalised to the lower-case form orders are keyed by. */
export const orderIdParam = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a uuid')
  .transform((v) => v.toLowerCase());

/** The `:id` path parameter of an order route. */
export const orderPath = z.object({ id: orderIdParam });
