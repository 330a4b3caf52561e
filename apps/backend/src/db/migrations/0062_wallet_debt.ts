import { sql, type Kysely } from 'kysely';

/**
 * Lets a wallet segment's chip balance and an origin's hint balance go below zero: a full refund
 * reverses exactly what the pack funded, so chips or hints already spent become a debt (nothing is
 * spent from a segment or origin in debt; a later credit pays it off by adding). Drops the two
 * `>= 0` checks of 0003.
 *
 * Down restores them and therefore refuses while any balance is negative: it raises, names how
 * many rows are in debt and changes nothing. Zeroing those rows instead would forgive the debt
 * off the books (balances would no longer equal the ledger), so settling them is left to an
 * operator (a `grant` ledger row per debt) before going down.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table wallet_segments drop constraint wallet_segments_balance_check`.execute(db);
  await sql`alter table benefits drop constraint benefits_hints_check`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    do $$
    declare
      segments bigint := (select count(*) from wallet_segments where balance < 0);
      origins bigint := (select count(*) from benefits where hints < 0);
    begin
      if segments > 0 or origins > 0 then
        raise exception 'wallet debts exist (% segments, % hint balances below zero): settle them with grant ledger rows before reverting 0062_wallet_debt', segments, origins
          using errcode = 'check_violation';
      end if;
    end
    $$
  `.execute(db);
  await sql`alter table wallet_segments add constraint wallet_segments_balance_check check (balance >= 0)`.execute(db);
  await sql`alter table benefits add constraint benefits_hints_check check (hints >= 0)`.execute(db);
}
