import { sql, type RawBuilder } from 'kysely';

/**
 * The no-ads extension rule, written once: a term extends from max(current end, now) by whole
 * 86 400 s days. The fragments take (current end, now, now, days); `noAdsExtended` renders them for
 * kysely, `noAdsExtendedText` as SQL text for the raw buy statement (the ledger audit replays it).
 */
const RULE = ['greatest(coalesce(', ', ', '), ', ') + (', " * 86400) * interval '1 second'"] as const;

/** The rule as a kysely expression over SQL expressions (columns, parameters). */
export function noAdsExtended(current: RawBuilder<unknown>, now: RawBuilder<unknown>, days: RawBuilder<unknown>): RawBuilder<Date> {
  const strings = Object.assign([...RULE], { raw: [...RULE] }) as unknown as TemplateStringsArray;
  return sql<Date>(strings, current, now, now, days);
}

/** The rule as SQL text over SQL expression texts. */
export function noAdsExtendedText(current: string, now: string, days: string): string {
  const values = [current, now, now, days];
  return RULE.map((part, i) => part + (values[i] ?? '')).join('');
}
