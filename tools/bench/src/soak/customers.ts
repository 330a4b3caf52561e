import { confirmByPage, signTelegramInitData } from '@wordgame/testkit';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { BOT_TOKEN, type SoakStack } from './stack.js';
import { waitFor } from '../services.js';

/** A signed-in customer: the bearer token, the account and, for a telegram customer, the platform user id. */
export interface Customer {
  token: string;
  accountId: string;
  platformUserId?: number;
}

/** The soak's customers: direct (web, confirmed e-mail: wallet and card) and telegram (Mini App: stars and bot messages). */
export interface Customers {
  direct: Customer[];
  telegram: Customer[];
}

/** The chips grant each direct customer starts with (wallet.buy draws from it for the whole run). */
const CHIPS = 1_000_000_000n;

/** Telegram Mini App init data signed as Telegram documents: hash = HMAC(HMAC("WebAppData", token), sorted fields). */
function telegramInitData(userId: number): string {
  const fields: Record<string, string> = {
    query_id: `soak-${userId}`,
    user: JSON.stringify({ id: userId, first_name: `Soak ${userId}` }),
    auth_date: String(Math.floor(Date.now() / 1000)),
  };
  return signTelegramInitData(BOT_TOKEN, fields);
}

async function session(url: string, body: unknown): Promise<{ token: string; account_id: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { token: string; account_id: string };
}

/** The confirmation token mailed to `email`, once the mail is in the dev mailbox. */
async function mailedToken(mailDir: string, email: string): Promise<string> {
  let token: string | undefined;
  await waitFor(
    () => {
      for (const file of readdirSync(mailDir)) {
        const mail = readFileSync(path.join(mailDir, file), 'utf8').replace(/=\r?\n/g, '');
        if (mail.includes(email)) token = /confirm-email\?token=([A-Za-z0-9_%=-]+)/.exec(mail)?.[1];
        if (token !== undefined) return Promise.resolve(true);
      }
      return Promise.resolve(false);
    },
    `the confirmation mail to ${email}`,
    30_000,
  );
  return token ?? '';
}

/** Credits chips to a segment the way a grant does: the balance and its ledger operation together (the audit stays clean). */
async function grantChips(dbUrl: string, accountIds: readonly string[], segment: string): Promise<void> {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    await db.query(
      `insert into wallet_segments (account_id, segment, balance) select unnest($1::bigint[]), $2, $3
       on conflict (account_id, segment) do update set balance = wallet_segments.balance + excluded.balance`,
      [accountIds, segment, CHIPS.toString()],
    );
    await db.query(
      `insert into ledger_operations (account_id, kind, segment, chips_delta, note) select unnest($1::bigint[]), 'grant', $2, $3, 'soak grant'`,
      [accountIds, segment, CHIPS.toString()],
    );
  } finally {
    await db.end();
  }
}

/**
 * Signs `count` direct customers up (each confirms the e-mail link the backend mailed, so the card
 * rail is open to them, and gets a chips grant) and `count` telegram customers in (each a started
 * user of the platform emulator and a member of the discussion chat, so payments, messages and
 * chat_gate reach them), all through the gateway.
 */
export async function signInCustomers(stack: SoakStack, count: number): Promise<Customers> {
  const direct: Customer[] = [];
  for (let i = 0; i < count; i += 1) {
    const email = `soak${i}@example.test`;
    const s = await session(`${stack.gateway}/api/v1/session/direct`, {
      email,
      password: 'soak password 1',
      mode: 'signup',
      subtype: 'web',
    });
    const token = await mailedToken(stack.mailDir, email);
    const confirmed = await confirmByPage(`${stack.gateway}/api/v1/user/profile/confirm-email?token=${token}`);
    if (confirmed.outcome !== 'confirmed') throw new Error(`confirm ${email}: ${confirmed.status} ${confirmed.message}`);
    direct.push({ token: s.token, accountId: s.account_id });
  }
  await grantChips(
    stack.dbUrl,
    direct.map((c) => c.accountId),
    'direct',
  );
  const telegram: Customer[] = [];
  for (let i = 0; i < count; i += 1) {
    const userId = 7_000_001 + i;
    for (const [route, body] of [
      ['users', { id: userId, firstName: `Soak ${userId}`, started: true }],
      ['members', { chatId: stack.discussionChatId, userId, status: 'member' }],
    ] as const) {
      const res = await fetch(`${stack.platform}/_control/${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`platform ${route}: ${res.status} ${await res.text()}`);
    }
    const s = await session(`${stack.gateway}/api/v1/session/telegram`, { init_data: telegramInitData(userId) });
    telegram.push({ token: s.token, accountId: s.account_id, platformUserId: userId });
  }
  return { direct, telegram };
}

/** The seeded catalog's products the soak uses: a chips-priced value product and a chip pack sold for stars and by card. */
export async function soakProducts(dbUrl: string): Promise<{ hints: string; pack: string }> {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const rows = (
      await db.query<{ id: string; title: string }>(
        `select id::text as id, title from catalog_products where title in ('Hints x10', 'Handful of chips')`,
      )
    ).rows;
    const id = (title: string) => {
      const found = rows.find((r) => r.title === title)?.id;
      if (!found) throw new Error(`the seeded catalog has no "${title}"`);
      return found;
    };
    return { hints: id('Hints x10'), pack: id('Handful of chips') };
  } finally {
    await db.end();
  }
}
