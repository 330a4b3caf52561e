import { Counter, type Registry } from 'prom-client';

/** The outcomes counted by backend_make_goods_total (a fixed set, never an id). */
export const MAKE_GOOD_OUTCOMES = ['granted', 'replayed', 'refused'] as const;

/** Registers backend_make_goods_total{outcome}: operator grants, their replays (a second submit) and refusals. */
export function createMakeGoodOutcomes(registry: Registry): Counter<'outcome'> {
  const c = new Counter({
    name: 'backend_make_goods_total',
    help: 'Operator make-good grants by outcome: granted, replayed (the same form submitted again: nothing more granted) or refused (role, input, cap, account).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const outcome of MAKE_GOOD_OUTCOMES) c.inc({ outcome }, 0);
  return c;
}
