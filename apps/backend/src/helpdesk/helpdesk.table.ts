import type { ColumnType, Generated } from 'kysely';

/** open: waits for an operator; resolved: an operator closed it. */
export type SupportCaseState = 'open' | 'resolved';
/** What happened on a case: the user opened it, an operator replied or resolved it, the account was deleted. */
export type SupportCaseEventKind = 'opened' | 'reply' | 'resolved' | 'erased';

/** One support case (0120). Its text and the user's platform id are erased ('' and 0) with the account; the row stays. */
export interface SupportCasesTable {
  id: Generated<bigint>;
  /** The short id quoted to the user: C- and six characters of 0-9A-Z. */
  code: string;
  platform: 'telegram' | 'vk';
  /** The asking user's platform id; 0 once erased with the account. */
  platform_user_id: bigint;
  /** The account the platform identity mapped to when the case was opened; null when none. */
  account_id: bigint | null;
  platform_charge_id: string | null;
  /** The order of that charge, when it names one of ours. */
  order_id: string | null;
  language: 'en' | 'ru';
  text: string;
  state: ColumnType<SupportCaseState, SupportCaseState | undefined, SupportCaseState>;
  opened_at: ColumnType<Date, Date, never>;
  resolved_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  resolved_by: ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
  erased_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A case's history; only `text` is ever changed (erased with the account). */
export interface SupportCaseEventsTable {
  id: Generated<bigint>;
  case_id: bigint;
  kind: SupportCaseEventKind;
  operator_id: bigint | null;
  text: ColumnType<string, string | undefined, string>;
  outcome: ColumnType<string, string | undefined, never>;
  at: ColumnType<Date, Date, never>;
}

declare module '../db/index.js' {
  /** The support desk's tables: the cases players open from the bot and their history. */
  interface DB {
    support_cases: SupportCasesTable;
    support_case_events: SupportCaseEventsTable;
  }
}
