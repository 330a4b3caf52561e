import pg from 'pg';
import type { RequestTemplate } from './load/spec.js';

// The wallet benches' buyers and product (wallet.ts and ab.ts): accounts signed up through the
// gateway (worker i is account i), and a 1-chip hint with a billion chips granted to every account
// through the ledger, so buys never run out and the ledger audit stays clean.

/** Signs up `count` direct web accounts through `gateway` (bench<first>@… on); answers their session tokens in order. */
export async function signUp(gateway: string, count: number, first = 0): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = first; i < first + count; i += 1) {
    const res = await fetch(`${gateway}/api/v1/session/direct`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `bench${i}@example.com`, password: 'bench-password', mode: 'signup', subtype: 'web' }),
    });
    if (res.status !== 200) throw new Error(`signup failed: ${res.status} ${await res.text()}`);
    tokens.push(((await res.json()) as { token: string }).token);
  }
  return tokens;
}

/** The 1-chip hint product and the chips to buy it with; answers the product id. */
export async function seedProduct(dbUrl: string): Promise<bigint> {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const product = await db.query<{ id: string }>(`insert into catalog_products (title) values ('Bench hint') returning id`);
    const productId = BigInt(product.rows[0]?.id ?? '0');
    await db.query(`insert into catalog_atoms (kind, quantity) values ('hints', 1) on conflict do nothing`);
    await db.query(
      `insert into catalog_product_atoms (product_id, atom_id) select $1, id from catalog_atoms where kind = 'hints' and quantity = 1`,
      [productId],
    );
    await db.query(`insert into catalog_prices (product_id, method, amount, currency) values ($1, 'chips', 1, 'CHIPS')`, [productId]);
    await db.query(`update wallet_segments set balance = balance + 1000000000 where segment = 'direct'`);
    await db.query(
      `insert into ledger_operations (account_id, kind, segment, chips_delta, note) select id, 'grant', 'direct', 1000000000, 'bench' from accounts`,
    );
    await db.query('vacuum analyze');
    return productId;
  } finally {
    await db.end();
  }
}

/** A card-sold product (100.00 RUB, one hint) for the order-creation load; answers its id. */
export async function seedCardProduct(dbUrl: string): Promise<bigint> {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const product = await db.query<{ id: string }>(`insert into catalog_products (title) values ('Bench card hint') returning id`);
    const productId = BigInt(product.rows[0]?.id ?? '0');
    await db.query(`insert into catalog_atoms (kind, quantity) values ('hints', 1) on conflict do nothing`);
    await db.query(
      `insert into catalog_product_atoms (product_id, atom_id) select $1, id from catalog_atoms where kind = 'hints' and quantity = 1`,
      [productId],
    );
    await db.query(
      `insert into catalog_product_texts (product_id, locale, title) values ($1, 'en', 'Bench card hint'), ($1, 'ru', 'Подсказка')`,
      [productId],
    );
    await db.query(`insert into catalog_prices (product_id, method, amount, currency) values ($1, 'provider', 10000, 'RUB')`, [productId]);
    return productId;
  } finally {
    await db.end();
  }
}

/** Marks every account's e-mail confirmed (a card order needs one; the bench's buyers never read their mail). */
export async function confirmEmails(dbUrl: string): Promise<void> {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    await db.query(`update accounts set email_confirmed_at = now() where email is not null and email_confirmed_at is null`);
  } finally {
    await db.end();
  }
}

/** wallet.get and wallet.buy as the load sends them: connection i is the buyer holding `tokens[i]`; every buy its own Idempotency-Key. */
export function walletTemplates(tokens: readonly string[], productId: string): Record<'get' | 'buy', RequestTemplate[]> {
  const auth = (t: string) => ({ authorization: `Bearer ${t}` });
  return {
    get: tokens.map((t) => ({ method: 'GET', path: '/api/v1/user/wallet', headers: auth(t) })),
    buy: tokens.map((t) => ({
      method: 'POST',
      path: '/api/v1/user/wallet',
      headers: { ...auth(t), 'content-type': 'application/json' },
      body: JSON.stringify({ product_id: productId }),
      uniqueHeader: 'idempotency-key',
    })),
  };
}
