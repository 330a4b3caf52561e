import fc from 'fast-check';
import { csrfToken } from '../src/console/csrf.js';
import { createOperator, OPERATOR_PASSWORD } from './console-support.js';
import { databaseFingerprint, startFuzzStack, type FuzzStack } from './support/fuzz-stack.js';
import { FUZZ_SCALE, FUZZ_SEED, absentId, hostilePathId, hostileString } from './support/hostile.js';

/** A console form post: where, the fields, and which credentials go with it. */
interface FormAttempt {
  path: string;
  form: Record<string, string>;
  session: boolean;
  csrf: 'valid' | 'none' | 'junk';
  junkCsrf: string;
}

const RUNS = 300 * FUZZ_SCALE;
const field = hostileString.filter((s) => s.length < 20_000);
/** Sign-in fields, NUL and other control characters included (refused like a wrong password). */
const loginField = field;
const credentials = fc.record({
  session: fc.boolean(),
  csrf: fc.constantFrom<'valid' | 'none' | 'junk'>('valid', 'none', 'junk'),
  junkCsrf: field,
});

/** Each console form with fields invalid by construction (or naming nothing that exists). */
function forms(): { name: string; attempts: fc.Arbitrary<FormAttempt> }[] {
  return [
    {
      name: 'ledger refund',
      attempts: fc
        .tuple(fc.oneof(fc.uuid(), field, absentId), fc.option(field), credentials)
        .map(([order, ret, c]) => ({ path: '/_gm/ledger/refund', form: { order, ...(ret === null ? {} : { return: ret }) }, ...c })),
    },
    {
      name: 'catalog save',
      attempts: fc
        .tuple(
          fc.dictionary(
            fc.constantFrom(
              'product_id',
              'active',
              'atom_chips',
              'atom_no_ads_days',
              'atom_no_ads_forever',
              'atom_hints',
              'price_chips',
              'price_provider',
              'price_provider_currency',
              'price_xtr',
            ),
            field,
          ),
          field.map((t) => `${t}<`),
          credentials,
        )
        .map(([fields, title, c]) => ({ path: '/_gm/catalog/save', form: { ...fields, title }, ...c })),
    },
    {
      name: 'user moderate',
      attempts: fc
        .tuple(
          fc.oneof(hostilePathId, absentId),
          fc.oneof(
            field.map((a) => `~${a}`),
            fc.constantFrom('block', 'temp_block', 'unblock', 'mute', 'unmute'),
          ),
          fc.option(field),
          credentials,
        )
        .map(([id, action, until, c]) => ({
          path: `/_gm/users/${id}/moderate`,
          form: { action, ...(until === null ? {} : { until }) },
          ...c,
          // A valid action is only sent at an id that names no account.
          ...(action.startsWith('~') ? {} : { path: `/_gm/users/${String(10n ** 15n + BigInt(id.length))}/moderate` }),
        })),
    },
  ];
}

/** Whether express can decode the path (a malformed percent escape is refused with 400 before any route). */
function decodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

async function post(url: string, form: Record<string, string>, cookie?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (cookie) headers['cookie'] = cookie;
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, setCookie: res.headers.getSetCookie(), text: await res.text() };
}

describe('hostile input on the console forms (real gateway, real backend process, PostgreSQL)', () => {
  let stack: FuzzStack;
  let cookie: string;
  let total = 0;
  const url = (path: string) => `${stack.urls.httpUrl}${path}`;

  async function loginForm(): Promise<{ nonceCookie: string; nonce: string }> {
    const res = await fetch(url('/_gm/login'), { redirect: 'manual' });
    const text = await res.text();
    return {
      nonceCookie:
        res.headers
          .getSetCookie()
          .find((c) => c.startsWith('gm_login='))
          ?.split(';')[0] ?? '',
      nonce: /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? '',
    };
  }

  beforeAll(async () => {
    stack = await startFuzzStack();
    expect(createOperator(stack.db.url, 'all@ops.test', 'viewer,refunder,catalog_editor,moderator').status).toBe(0);
    const { nonceCookie, nonce } = await loginForm();
    const res = await post(url('/_gm/login'), { _csrf: nonce, login: 'all@ops.test', password: OPERATOR_PASSWORD }, nonceCookie);
    expect(res.status).toBe(303);
    cookie = res.setCookie.find((c) => c.startsWith('gm_session='))?.split(';')[0] ?? '';
    expect(cookie).not.toBe('');
  }, 120_000);
  afterAll(async () => {
    process.stdout.write(`hostile console inputs tried: ${total} (seed ${FUZZ_SEED}, scale ${FUZZ_SCALE})\n`);
    await stack?.stop();
  });

  /** Refused attempts are audited by design (append-only); what matters is that none was audited as done. */
  const fingerprint = () => databaseFingerprint(stack.db, ['operator_audit', 'rate_limits']);
  const auditedSuccesses = async () =>
    (
      await stack.db.query<{ n: number }>(
        `select count(*)::int as n from operator_audit where outcome not in ('failed', 'forbidden', 'refused') and action <> 'login'`,
      )
    ).rows[0]?.n;

  async function stillUp(): Promise<void> {
    expect((await fetch(`${stack.backend.url}/health`)).status).toBe(200);
    expect((await fetch(url('/health'))).status).toBe(200);
  }

  it('refuses generated sign-ins (with and without the login nonce) without 5xx and opens no session', async () => {
    const before = await fingerprint();
    const successes = await auditedSuccesses();
    const { nonceCookie, nonce } = await loginForm();
    let tried = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({ login: loginField, password: loginField, withNonce: fc.boolean(), ret: fc.option(field) }),
        async ({ login, password, withNonce, ret }) => {
          tried++;
          const form = { login, password, ...(withNonce ? { _csrf: nonce } : {}), ...(ret === null ? {} : { return: ret }) };
          const res = await post(url('/_gm/login'), form, withNonce ? nonceCookie : undefined);
          expect(res.status).toBeLessThan(500);
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(res.setCookie.some((c) => c.startsWith('gm_session='))).toBe(false);
        },
      ),
      { numRuns: RUNS, seed: FUZZ_SEED },
    );
    total += tried;
    await stillUp();
    expect(await fingerprint()).toEqual(before);
    expect(await auditedSuccesses()).toBe(successes);
  }, 120_000);

  it('refuses generated refund, catalog and moderation posts (valid session + CSRF, and without) without 5xx, writing nothing', async () => {
    const before = await fingerprint();
    const successes = await auditedSuccesses();
    for (const [index, target] of forms().entries()) {
      let tried = 0;
      await fc.assert(
        fc.asyncProperty(target.attempts, async (a) => {
          tried++;
          const token = a.csrf === 'valid' ? csrfToken(cookie.replace(/^gm_session=/, '')) : a.csrf === 'junk' ? a.junkCsrf : undefined;
          const res = await post(
            url(a.path),
            { ...a.form, ...(token === undefined ? {} : { _csrf: token }) },
            a.session ? cookie : undefined,
          );
          const where = `${target.name} ${a.path.slice(0, 100)} session=${a.session} csrf=${a.csrf} -> ${res.status} ${res.text.slice(0, 200)}`;
          if (res.status >= 500) throw new Error(`5xx: ${where}`);
          if (res.status < 400) throw new Error(`accepted: ${where}`);
          if (res.status === 413 || (res.status === 400 && !decodable(a.path))) return;
          // No route is behind a path the URL parser rewrites or one with an empty segment (`/_gm/users//moderate`).
          if (res.status === 404 && (new URL(a.path, 'http://x').pathname !== a.path || a.path.includes('//'))) return;
          if (!a.session && res.status !== 401) throw new Error(`expected 401 without a session: ${where}`);
          if (a.session && a.csrf !== 'valid' && res.status !== 403) throw new Error(`expected 403 without a valid CSRF token: ${where}`);
        }),
        { numRuns: RUNS, seed: FUZZ_SEED + 100 + index },
      );
      total += tried;
      await stillUp();
      expect([target.name, await fingerprint(), await auditedSuccesses()]).toEqual([target.name, before, successes]);
    }
    expect(stack.provider.control.payments().flatMap((p) => p.refunds)).toEqual([]);
  }, 180_000);
});
